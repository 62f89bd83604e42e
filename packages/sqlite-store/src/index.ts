/**
 * @since 1.0.0
 */
export * as SqliteApiKeyStore from "./SqliteApiKeyStore.js"
export * as SqliteDatabase from "./SqliteDatabase.js"
export * as SqliteIdempotencyStore from "./SqliteIdempotencyStore.js"
export * as SqliteMigrations from "./SqliteMigrations.js"
export * as SqlitePetRepository from "./SqlitePetRepository.js"
export * as SqliteRateLimitStore from "./SqliteRateLimitStore.js"
export * as SqliteStore from "./SqliteStore.js"
export * as SqliteStoreSecrets from "./SqliteStoreSecrets.js"
