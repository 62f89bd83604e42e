/**
 * @since 1.0.0
 */
export * as MemoryApiKeyStore from "./MemoryApiKeyStore.js"
export * as MemoryRateLimitStore from "./MemoryRateLimitStore.js"
