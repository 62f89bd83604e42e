/**
 * @since 1.0.0
 */
export * as ApiKeyRow from "./ApiKeyRow.js"
export * as RateLimitRow from "./RateLimitRow.js"
export * as SqlRow from "./SqlRow.js"
export * as SqlStore from "./SqlStore.js"
export * as SqlStoreError from "./SqlStoreError.js"
export * as SqlStoreMigrations from "./SqlStoreMigrations.js"
export * as SqlStoreSecrets from "./SqlStoreSecrets.js"
export * as StoreUrl from "./StoreUrl.js"
