/**
 * Animal Store's core: the domain (pets, keys, plans, idempotency), its
 * operations and the ports stores implement, and the Promise facade.
 *
 * @since 1.0.0
 */
export * as AccessConfig from "./AccessConfig.js"
export * as AnimalStore from "./AnimalStore.js"
export * as AnimalStoreError from "./AnimalStoreError.js"
export * as ApiError from "./ApiError.js"
export * as ApiKey from "./ApiKey.js"
export * as ApiKeyAuth from "./ApiKeyAuth.js"
export * as ApiKeyStore from "./ApiKeyStore.js"
export * as Delivery from "./Delivery.js"
export * as DeprecationPolicy from "./DeprecationPolicy.js"
export * as GuardedPetOperations from "./GuardedPetOperations.js"
export * as Idempotency from "./Idempotency.js"
export * as IdempotencyStore from "./IdempotencyStore.js"
export * as KeyAdministration from "./KeyAdministration.js"
export * as ListPetsQuery from "./ListPetsQuery.js"
export * as Pet from "./Pet.js"
export * as PetInput from "./PetInput.js"
export * as PetOperations from "./PetOperations.js"
export * as PetRepository from "./PetRepository.js"
export * as Plan from "./Plan.js"
export * as PlanRateLimiter from "./PlanRateLimiter.js"
export * as RateLimitStore from "./RateLimitStore.js"
export * as StoreError from "./StoreError.js"
export * as StoreReadiness from "./StoreReadiness.js"
