/**
 * The shared store contract suites: a store package runs them against its own layers.
 *
 * @since 1.0.0
 */
export * from "./PetRepositoryContract.js"
export * from "./ApiKeyStoreContract.js"
export * from "./RateLimitStoreContract.js"
export * from "./IdempotencyStoreContract.js"
export * from "./CursorSecretContract.js"
export * from "./KeyLifecycleContract.js"
