/**
 * @since 1.0.0
 */
export * as AnimalStoreClient from "./AnimalStoreClient.js"
export * as ClientError from "./ClientError.js"
export * as Deprecation from "./Deprecation.js"
export * as PromiseClient from "./PromiseClient.js"
export * as RateLimit from "./RateLimit.js"
export * as RetryPolicy from "./RetryPolicy.js"
