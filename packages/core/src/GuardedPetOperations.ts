/**
 * Admission of a client's request: authentication (or the client address's
 * limit without a valid key), ban, rate limits and deprecation, as one step
 * that yields the admitted key and the metadata every response carries.
 * An adapter admits, then calls `PetOperations` itself; `listPets`,
 * `createPet` and `getPet` are that sequence for the Promise facade.
 *
 * @since 1.0.0
 */
import { Context, Data, Effect, Layer } from "effect"
import type { ApiError } from "./ApiError.js"
import { ApiKeyBanned, RateLimited } from "./ApiError.js"
import type { Principal } from "./ApiKey.js"
import type { ApiKeyAuthService } from "./ApiKeyAuth.js"
import { ApiKeyAuth } from "./ApiKeyAuth.js"
import type { Deprecation, DeprecationPolicyService } from "./DeprecationPolicy.js"
import { DeprecationPolicy } from "./DeprecationPolicy.js"
import type { PetPage } from "./ListPetsQuery.js"
import type { Pet } from "./Pet.js"
import type { OperationName } from "./PetOperations.js"
import * as PetInput from "./PetInput.js"
import { PetOperations } from "./PetOperations.js"
import type { PlanRateLimiterService, RateLimitDecision, RateLimitSubject } from "./PlanRateLimiter.js"
import { PlanRateLimiter } from "./PlanRateLimiter.js"
import type { StoreError } from "./StoreError.js"
import * as Tracing from "./internal/tracing.js"

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
 * An admitted operation: the key it acts as and its metadata.
 *
 * @since 1.0.0
 * @category models
 */
export interface Admission {
  readonly principal: Principal
  readonly meta: ResponseMeta
}

/**
 * An admitted request that needs no key: the key it counted against
 * (`undefined` when it came without a valid one) and its metadata.
 *
 * @since 1.0.0
 * @category models
 */
export interface KeylessAdmission {
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
 * A failed guarded call: the typed error and the metadata of its response.
 * A tagged value wrapping the error (which is the `Error`), not an `Error` itself.
 *
 * @since 1.0.0
 * @category errors
 */
export class GuardedFailure extends Data.TaggedClass("GuardedFailure")<{
  readonly error: ApiError | StoreError
  readonly meta: ResponseMeta
  /** The key the request was counted against, when it was authenticated (a 429 of a key included). */
  readonly principal?: Principal | undefined
}> {}

/**
 * @since 1.0.0
 * @category models
 */
export interface GuardedPetOperationsService {
  /**
   * Admits a request for `operation`: authenticate (401 without a valid
   * key, after the client address's limit), ban, rate limits, deprecation.
   */
  readonly admit: (request: ClientRequest, operation: OperationName) => Effect.Effect<Admission, GuardedFailure>
  /**
   * Admits a request that needs no key (an adapter's documents, `OPTIONS`,
   * unknown routes): it counts against its key when a valid one is sent and
   * against its client address otherwise, and is refused only by the limits.
   */
  readonly admitKeyless: (request: ClientRequest) => Effect.Effect<KeylessAdmission, GuardedFailure>
  /** Admits, decodes `query` and lists; a failure carries the admission's metadata. */
  readonly listPets: (request: ClientRequest, query: unknown) => Effect.Effect<Guarded<PetPage>, GuardedFailure>
  /** Admits, decodes `body` and creates; a replay is marked in `meta`. */
  readonly createPet: (
    request: ClientRequest,
    body: unknown,
    options?: GuardedCreatePetOptions
  ) => Effect.Effect<Guarded<Pet>, GuardedFailure>
  /** Admits, decodes `id` and reads. */
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

const refuse = (
  error: ApiError | StoreError,
  meta: ResponseMeta,
  principal?: Principal
): Effect.Effect<never, GuardedFailure> => Effect.fail(new GuardedFailure({ error, meta, principal }))

/** The metadata of a request the limiter could not count. */
const uncounted = (deprecation: Deprecation | undefined): ResponseMeta => ({ rateLimit: undefined, deprecation })

/** The failure of a refused decision; `undefined` when it is accepted. */
const refusal = (decision: RateLimitDecision): RateLimited | ApiKeyBanned | undefined => {
  const retryAfter = decision.retryAfter ?? 0
  switch (decision.outcome) {
    case "Accepted":
      return undefined
    case "RateLimited":
      return new RateLimited({ retryAfter })
    case "Banned":
      return new ApiKeyBanned({ retryAfter })
  }
}

const addressOf = (request: ClientRequest): RateLimitSubject => ({ _tag: "Address", address: request.clientAddress })

const keyOf = (principal: Principal): RateLimitSubject => ({ _tag: "Key", principal })

/** The outcome of an admitted operation: its value or its failure, with the admission's metadata. */
const settle = <A>(
  { meta, principal }: Admission,
  operation: Effect.Effect<A, ApiError | StoreError>
): Effect.Effect<Guarded<A>, GuardedFailure> =>
  Effect.mapBoth(operation, {
    onFailure: (error) => new GuardedFailure({ error, meta, principal }),
    onSuccess: (value) => ({ value, meta })
  })

/** `admit` and `admitKeyless` on the key store's authentication, the limiter and the deprecation policy. */
const admission = (
  auth: ApiKeyAuthService,
  limiter: PlanRateLimiterService,
  policy: DeprecationPolicyService,
  span: Tracing.Span
): Pick<GuardedPetOperationsService, "admit" | "admitKeyless"> => {
  /** Counts one request of `subject`: its metadata when accepted, its refusal otherwise. */
  const count = (subject: RateLimitSubject, deprecation: Deprecation | undefined): Effect.Effect<ResponseMeta, GuardedFailure> =>
    Effect.matchEffect(limiter.check(subject), {
      onFailure: (error) => refuse(error, uncounted(deprecation), subject._tag === "Key" ? subject.principal : undefined),
      onSuccess: (decision) => {
        const meta: ResponseMeta = { rateLimit: decision, deprecation }
        const refused = refusal(decision)
        return refused === undefined
          ? Effect.succeed(meta)
          : refuse(refused, meta, subject._tag === "Key" ? subject.principal : undefined)
      }
    })

  const admit = (request: ClientRequest, operation: OperationName): Effect.Effect<Admission, GuardedFailure> => {
    const deprecation = policy.forOperation(operation)
    return span("GuardedPetOperations.admit", { "animal_store.operation": operation })(auth.authenticate(request.credential).pipe(
      Effect.catchTags({
        Unauthorized: (error) => Effect.flatMap(count(addressOf(request), deprecation), (meta) => refuse(error, meta)),
        StoreError: (error) => refuse(error, uncounted(deprecation))
      }),
      Effect.flatMap((principal) => {
        const admitted = Effect.map(count(keyOf(principal), deprecation), (meta): Admission => ({ principal, meta }))
        return deprecation === undefined ? admitted : Effect.tap(admitted, ({ meta }) =>
          Effect.catchAll(policy.check(operation), (error) => refuse(error, meta, principal)))
      })
    ))
  }

  const admitKeyless = (request: ClientRequest): Effect.Effect<KeylessAdmission, GuardedFailure> =>
    span("GuardedPetOperations.admitKeyless")(auth.authenticate(request.credential).pipe(
      Effect.catchTags({
        Unauthorized: () => Effect.succeed(undefined),
        StoreError: (error) => refuse(error, uncounted(undefined))
      }),
      Effect.flatMap((principal) =>
        Effect.map(
          count(principal === undefined ? addressOf(request) : keyOf(principal), undefined),
          (meta): KeylessAdmission => ({ principal, meta })
        )
      )
    ))

  return { admit, admitKeyless }
}

/**
 * Builds the guarded operations. The order of the checks is: authenticate
 * (without a valid key, the per-address limit, then 401 for an operation),
 * ban and rate limits of the key, deprecation, then the operation.
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
  const { admit, admitKeyless } = admission(yield* ApiKeyAuth, yield* PlanRateLimiter, yield* DeprecationPolicy, yield* Tracing.span)
  return {
    admit,
    admitKeyless,
    listPets: (request, query) =>
      Effect.flatMap(admit(request, "listPets"), (admitted) =>
        settle(admitted, Effect.flatMap(PetInput.decodeListPetsQuery(query), operations.listPets))),
    createPet: (request, body, options) =>
      Effect.flatMap(admit(request, "createPet"), (admitted) => {
        const idempotencyKey = options?.idempotencyKey
        const created = Effect.flatMap(PetInput.decodeNewPet(body), (pet) =>
          operations.createPet(
            pet,
            idempotencyKey === undefined ? undefined : { idempotencyKey, idempotencyScope: admitted.principal.keyId, body }
          ))
        return Effect.map(settle(admitted, created), ({ meta, value: { pet, replayed } }) => ({
          value: pet,
          meta: replayed ? { ...meta, idempotentReplayed: true as const } : meta
        }))
      }),
    getPet: (request, id) =>
      Effect.flatMap(admit(request, "getPet"), (admitted) =>
        settle(admitted, Effect.flatMap(PetInput.decodePetId(id), operations.getPet)))
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
