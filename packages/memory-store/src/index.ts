/**
 * @since 1.0.0
 */
export * as MemoryApiKeyStore from "./MemoryApiKeyStore.js"
export * as MemoryIdempotencyStore from "./MemoryIdempotencyStore.js"
export * as MemoryPetRepository from "./MemoryPetRepository.js"
export * as MemoryRateLimitStore from "./MemoryRateLimitStore.js"
export * as MemoryStore from "./MemoryStore.js"
