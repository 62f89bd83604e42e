/**
 * @since 1.0.0
 */
export * as PostgresApiKeyStore from "./PostgresApiKeyStore.js"
export * as PostgresDatabase from "./PostgresDatabase.js"
export * as PostgresIdempotencyStore from "./PostgresIdempotencyStore.js"
export * as PostgresMigrations from "./PostgresMigrations.js"
export * as PostgresPetRepository from "./PostgresPetRepository.js"
export * as PostgresRateLimitStore from "./PostgresRateLimitStore.js"
export * as PostgresStore from "./PostgresStore.js"
export * as PostgresUrl from "./PostgresUrl.js"
