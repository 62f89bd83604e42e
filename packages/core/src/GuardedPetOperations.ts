/**
 * The operations on behalf of a client: each call authenticates the bearer
 * credential (or limits the client address when there is none valid), applies
 * the ban and the rate limits, the deprecation policy, and then the operation.
 * Success and failure both carry the rate-limit and deprecation metadata, so
 * every response of every adapter can carry its headers.
 *
 * @since 1.0.0
 */
import { Context, Data, Effect, Layer } from "effect"
import type { ApiError } from "./ApiError.js"
import type { Unauthorized } from "./ApiError.js"
import { ApiKeyBanned, RateLimited } from "./ApiError.js"
import type { Principal } from "./ApiKey.js"
import { ApiKeyAuth } from "./ApiKeyAuth.js"
import type { Deprecation } from "./DeprecationPolicy.js"
import { DeprecationPolicy } from "./DeprecationPolicy.js"
import type { PetPage } from "./ListPetsQuery.js"
import type { Pet } from "./Pet.js"
import type { OperationName } from "./PetOperations.js"
import { PetOperations } from "./PetOperations.js"
import type { RateLimitDecision } from "./PlanRateLimiter.js"
import { PlanRateLimiter } from "./PlanRateLimiter.js"
import type { StoreError } from "./StoreError.js"
import { withoutStackTrace } from "./internal/expected.js"

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
  /**
   * `true` on a `createPet` that replayed the animal of a first request with
   * the same `Idempotency-Key` (HTTP: `Idempotent-Replayed: true`); absent otherwise.
   */
  readonly idempotentReplayed?: true | undefined
}

/**
 * The options of a guarded `createPet`: an `Idempotency-Key`, scoped to the
 * client's API key (see `PetOperations.CreatePetOptions`).
 *
 * @since 1.0.0
 * @category models
 */
export interface GuardedCreatePetOptions {
  readonly idempotencyKey?: string | undefined
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
 * A plain tagged value, not an `Error`: it only carries the typed error
 * (which is one) and is made on every refused request, where building an
 * `Error` would cost more than the rest of the refusal.
 *
 * @since 1.0.0
 * @category errors
 */
export class GuardedFailure extends Data.TaggedClass("GuardedFailure")<{
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
  readonly createPet: (
    request: ClientRequest,
    body: unknown,
    options?: GuardedCreatePetOptions
  ) => Effect.Effect<Guarded<Pet>, GuardedFailure>
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

const guardedFailure = (error: ApiError | StoreError, meta: ResponseMeta): GuardedFailure =>
  new GuardedFailure({ error, meta })

// `retryAfter` is a whole number of seconds by construction: no need to validate it again.
const makeRateLimited = (retryAfter: number) => new RateLimited({ retryAfter }, true)
const makeApiKeyBanned = (retryAfter: number) => new ApiKeyBanned({ retryAfter }, true)

/** The failure of a refused decision; `undefined` when it is accepted. */
const refusal = (decision: RateLimitDecision): RateLimited | ApiKeyBanned | undefined => {
  const retryAfter = decision.retryAfter ?? 0
  switch (decision.outcome) {
    case "Accepted":
      return undefined
    case "RateLimited":
      return withoutStackTrace(makeRateLimited, retryAfter)
    case "Banned":
      return withoutStackTrace(makeApiKeyBanned, retryAfter)
  }
}

/**
 * Builds the guarded operations. The order of the checks is: authenticate
 * (without a valid key, the per-address limit, then 401 for an operation),
 * ban and rate limits of the key, deprecation, then the operation. Every
 * result of an operation carries its deprecation, and every result carries
 * the rate-limit decision that was reached.
 *
 * @since 1.0.0
 * @category constructors
 */
export const make: Effect.Effect<
  GuardedPetOperationsService,
  never,
  PetOperations | ApiKeyAuth | PlanRateLimiter | DeprecationPolicy
> = Effect.gen(function*() {
  const operations = yield* PetOperations
  const auth = yield* ApiKeyAuth
  const limiter = yield* PlanRateLimiter
  const policy = yield* DeprecationPolicy

  /** After the limiter accepted: 401 without a key for an operation, then the deprecation policy. */
  const conclude = (
    operation: OperationName | undefined,
    admission: Admission,
    unauthorized: Unauthorized | undefined
  ): Effect.Effect<Admission, GuardedFailure> => {
    if (operation === undefined) return Effect.succeed(admission)
    if (unauthorized !== undefined) return Effect.fail(guardedFailure(unauthorized, admission.meta))
    // An operation without a deprecation has nothing to check.
    if (admission.meta.deprecation === undefined) return Effect.succeed(admission)
    return Effect.mapBoth(policy.check(operation), {
      onFailure: (error) => guardedFailure(error, admission.meta),
      onSuccess: () => admission
    })
  }

  const limit = (
    request: ClientRequest,
    operation: OperationName | undefined,
    deprecation: Deprecation | undefined,
    principal: Principal | undefined,
    unauthorized: Unauthorized | undefined
  ): Effect.Effect<Admission, GuardedFailure> =>
    Effect.matchEffect(
      limiter.check(
        principal === undefined ? { _tag: "Address", address: request.clientAddress } : { _tag: "Key", principal }
      ),
      {
        onFailure: (error) => Effect.fail(guardedFailure(error, { rateLimit: undefined, deprecation })),
        onSuccess: (decision) => {
          const meta: ResponseMeta = { rateLimit: decision, deprecation }
          const refused = refusal(decision)
          return refused === undefined
            ? conclude(operation, { principal, meta }, unauthorized)
            : Effect.fail(guardedFailure(refused, meta))
        }
      }
    )

  const admit = (
    request: ClientRequest,
    operation: OperationName | undefined
  ): Effect.Effect<Admission, GuardedFailure> => {
    const deprecation = operation === undefined ? undefined : policy.forOperation(operation)
    return Effect.matchEffect(auth.authenticate(request.credential), {
      onFailure: (error) =>
        error._tag === "Unauthorized"
          ? limit(request, operation, deprecation, undefined, error)
          : Effect.fail(guardedFailure(error, { rateLimit: undefined, deprecation })),
      onSuccess: (principal) => limit(request, operation, deprecation, principal, undefined)
    })
  }

  const guard = <A>(
    request: ClientRequest,
    operation: OperationName,
    run: Effect.Effect<A, ApiError | StoreError>
  ): Effect.Effect<Guarded<A>, GuardedFailure> =>
    Effect.flatMap(admit(request, operation), ({ meta }) =>
      Effect.mapBoth(run, {
        onFailure: (error) => guardedFailure(error, meta),
        onSuccess: (value) => ({ value, meta })
      }))

  /** A keyed create, scoped to the admitted key; a replay is marked in `meta`. */
  const createKeyed = (
    request: ClientRequest,
    body: unknown,
    idempotencyKey: string
  ): Effect.Effect<Guarded<Pet>, GuardedFailure> =>
    Effect.flatMap(admit(request, "createPet"), ({ meta, principal }) =>
      Effect.mapBoth(
        operations.createPetOutcome(body, { idempotencyKey, idempotencyScope: principal?.keyId }),
        {
          onFailure: (error) => guardedFailure(error, meta),
          onSuccess: ({ pet, replayed }) => ({ value: pet, meta: replayed ? { ...meta, idempotentReplayed: true } : meta })
        }
      ))

  return {
    admit,
    listPets: (request, query) => guard(request, "listPets", operations.listPets(query)),
    createPet: (request, body, options) =>
      options?.idempotencyKey === undefined
        ? guard(request, "createPet", operations.createPet(body))
        : createKeyed(request, body, options.idempotencyKey),
    getPet: (request, id) => guard(request, "getPet", operations.getPet(id))
  }
})

/**
 * @since 1.0.0
 * @category layers
 */
export const layer: Layer.Layer<
  GuardedPetOperations,
  never,
  PetOperations | ApiKeyAuth | PlanRateLimiter | DeprecationPolicy
> = Layer.effect(GuardedPetOperations, make)
