/**
 * The operations on behalf of a client: each call authenticates the bearer
 * credential (or limits the client address when there is none valid), applies
 * the ban and the rate limits, the deprecation policy, and then the operation.
 * Success and failure both carry the rate-limit and deprecation metadata, so
 * every response of every adapter can carry its headers.
 *
 * @since 1.0.0
 */
import type { Effect } from "effect"
import { Context, Data } from "effect"
import type { ApiError } from "./ApiError.js"
import type { Principal } from "./ApiKey.js"
import type { Deprecation } from "./DeprecationPolicy.js"
import type { PetPage } from "./ListPetsQuery.js"
import type { Pet } from "./Pet.js"
import type { OperationName } from "./PetOperations.js"
import type { RateLimitDecision } from "./PlanRateLimiter.js"
import type { StoreError } from "./StoreError.js"

/**
 * Who is asking: the bearer token sent (`undefined` when none) and the client address.
 *
 * @since 1.0.0
 * @category models
 */
export interface ClientRequest {
  readonly credential: string | undefined
  readonly clientAddress: string
}

/**
 * What every response carries besides its body.
 *
 * @since 1.0.0
 * @category models
 */
export interface ResponseMeta {
  /** `undefined` only when the limiter could not be reached (a `StoreError`). */
  readonly rateLimit: RateLimitDecision | undefined
  readonly deprecation: Deprecation | undefined
}

/**
 * An admitted request: who it acts as (`undefined` for a request to a route
 * that needs no key, made without a valid one) and its metadata.
 *
 * @since 1.0.0
 * @category models
 */
export interface Admission {
  readonly principal: Principal | undefined
  readonly meta: ResponseMeta
}

/**
 * A successful guarded call.
 *
 * @since 1.0.0
 * @category models
 */
export interface Guarded<A> {
  readonly value: A
  readonly meta: ResponseMeta
}

/**
 * A failed guarded call: the typed error and the metadata of the response.
 *
 * @since 1.0.0
 * @category errors
 */
export class GuardedFailure extends Data.TaggedError("GuardedFailure")<{
  readonly error: ApiError | StoreError
  readonly meta: ResponseMeta
}> {}

/**
 * @since 1.0.0
 * @category models
 */
export interface GuardedPetOperationsService {
  /**
   * Admits a request: for an operation, authenticate (401 without a valid
   * key, after the per-address limit), ban, rate limit and deprecation; for
   * any other route (`operation` undefined: documents, unknown routes) the
   * request counts against its key when a valid one is sent and against its
   * address otherwise, and is never refused for lack of a key.
   */
  readonly admit: (request: ClientRequest, operation: OperationName | undefined) => Effect.Effect<Admission, GuardedFailure>
  readonly listPets: (request: ClientRequest, query: unknown) => Effect.Effect<Guarded<PetPage>, GuardedFailure>
  readonly createPet: (request: ClientRequest, body: unknown) => Effect.Effect<Guarded<Pet>, GuardedFailure>
  readonly getPet: (request: ClientRequest, id: unknown) => Effect.Effect<Guarded<Pet>, GuardedFailure>
}

/**
 * @since 1.0.0
 * @category tags
 */
export class GuardedPetOperations extends Context.Tag("@animal-store/core/GuardedPetOperations")<
  GuardedPetOperations,
  GuardedPetOperationsService
>() {}
