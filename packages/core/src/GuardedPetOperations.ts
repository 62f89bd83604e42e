/**
 * The operations on behalf of a client: each call authenticates the bearer
 * credential (or limits the client address when there is none valid), applies
 * the ban and the rate limits, the deprecation policy, and then the operation.
 * Success and failure both carry the rate-limit and deprecation metadata, so
 * every response of every adapter can carry its headers.
 *
 * @since 1.0.0
 */
import { Context, Effect, Exit, Layer } from "effect"
import type { ApiError } from "./ApiError.js"
import type { ApiKeyBanned, RateLimited } from "./ApiError.js"
import type { Principal } from "./ApiKey.js"
import { ApiKeyAuth } from "./ApiKeyAuth.js"
import type { Deprecation } from "./DeprecationPolicy.js"
import { DeprecationPolicy } from "./DeprecationPolicy.js"
import type { PetPage } from "./ListPetsQuery.js"
import type { Pet } from "./Pet.js"
import type { OperationName } from "./PetOperations.js"
import * as PetInput from "./PetInput.js"
import { PetOperations } from "./PetOperations.js"
import type { RateLimitDecision, RateLimitSubject } from "./PlanRateLimiter.js"
import { PlanRateLimiter } from "./PlanRateLimiter.js"
import type { StoreError } from "./StoreError.js"
import * as Immediate from "./Immediate.js"
import * as ExpectedErrors from "./internal/expectedErrors.js"

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
 * A failed guarded call: the typed error and the metadata of the response.
 * A plain tagged value, not an `Error` nor a `Data` class: it only carries
 * the typed error (which is one) and is made on every refused request, where
 * building an `Error` would cost more than the rest of the refusal (and a
 * `Data` class copies its fields once more).
 *
 * @since 1.0.0
 * @category errors
 */
export class GuardedFailure {
  readonly _tag = "GuardedFailure"
  readonly error: ApiError | StoreError
  readonly meta: ResponseMeta
  constructor(args: { readonly error: ApiError | StoreError; readonly meta: ResponseMeta }) {
    this.error = args.error
    this.meta = args.meta
  }
}

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
  /**
   * Admits a request for `operation`, then runs `f` as the admitted key: the
   * one composition of every adapter (the HTTP handler, the Promise facade,
   * the operations below). Failures of `f` carry the admission's metadata.
   */
  readonly run: <A, E extends ApiError | StoreError, R>(
    request: ClientRequest,
    operation: OperationName,
    f: (principal: Principal) => Effect.Effect<A, E, R>
  ) => Effect.Effect<Guarded<A>, GuardedFailure, R>
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

/** The failure of a refused decision; `undefined` when it is accepted. */
const refusal = (decision: RateLimitDecision): RateLimited | ApiKeyBanned | undefined => {
  const retryAfter = decision.retryAfter ?? 0
  switch (decision.outcome) {
    case "Accepted":
      return undefined
    case "RateLimited":
      return ExpectedErrors.rateLimited(retryAfter)
    case "Banned":
      return ExpectedErrors.apiKeyBanned(retryAfter)
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

  /** Counts one request of `subject`: `accepted` with its metadata, else its refusal. */
  const count = <A, R>(
    subject: RateLimitSubject,
    deprecation: Deprecation | undefined,
    accepted: (meta: ResponseMeta) => Effect.Effect<A, GuardedFailure, R>
  ): Effect.Effect<A, GuardedFailure, R> =>
    Immediate.matchEffect(limiter.check(subject), {
      onFailure: (error) => Exit.fail(guardedFailure(error, { rateLimit: undefined, deprecation })),
      onSuccess: (decision) => {
        const meta: ResponseMeta = { rateLimit: decision, deprecation }
        const refused = refusal(decision)
        return refused === undefined ? accepted(meta) : Exit.fail(guardedFailure(refused, meta))
      }
    })

  const addressOf = (request: ClientRequest): RateLimitSubject => ({ _tag: "Address", address: request.clientAddress })

  /** Admits a request for `operation`, then goes on with `admitted` (one continuation: no step of the fiber between). */
  const admitThen = <A, R>(
    request: ClientRequest,
    operation: OperationName,
    admitted: (admission: Admission) => Effect.Effect<A, GuardedFailure, R>
  ): Effect.Effect<A, GuardedFailure, R> => {
    const deprecation = policy.forOperation(operation)
    return Immediate.matchEffect(auth.authenticate(request.credential), {
      onFailure: (error) =>
        error._tag === "Unauthorized"
          ? count(addressOf(request), deprecation, (meta) => Exit.fail(guardedFailure(error, meta)))
          : Exit.fail(guardedFailure(error, { rateLimit: undefined, deprecation })),
      onSuccess: (principal) =>
        count({ _tag: "Key", principal }, deprecation, (meta) =>
          // An operation without a deprecation has nothing to check.
          deprecation === undefined
            ? admitted({ principal, meta })
            : Immediate.matchEffect(policy.check(operation), {
              onFailure: (error) => Exit.fail(guardedFailure(error, meta)),
              onSuccess: () => admitted({ principal, meta })
            }))
    })
  }

  const admit = (request: ClientRequest, operation: OperationName): Effect.Effect<Admission, GuardedFailure> =>
    admitThen(request, operation, Exit.succeed)

  const admitKeyless = (request: ClientRequest): Effect.Effect<KeylessAdmission, GuardedFailure> =>
    Immediate.matchEffect(auth.authenticate(request.credential), {
      onFailure: (error) =>
        error._tag === "Unauthorized"
          ? count(addressOf(request), undefined, (meta) => Exit.succeed({ principal: undefined, meta }))
          : Exit.fail(guardedFailure(error, { rateLimit: undefined, deprecation: undefined })),
      onSuccess: (principal) => count({ _tag: "Key", principal }, undefined, (meta) => Exit.succeed({ principal, meta }))
    })

  const run = <A, E extends ApiError | StoreError, R>(
    request: ClientRequest,
    operation: OperationName,
    f: (principal: Principal) => Effect.Effect<A, E, R>
  ): Effect.Effect<Guarded<A>, GuardedFailure, R> =>
    admitThen(request, operation, ({ meta, principal }) =>
      Immediate.matchEffect(f(principal), {
        onFailure: (error) => Exit.fail(guardedFailure(error, meta)),
        onSuccess: (value) => Exit.succeed({ value, meta })
      }))

  return {
    admit,
    admitKeyless,
    run,
    listPets: (request, query) =>
      run(request, "listPets", () => Immediate.flatMap(PetInput.decodeListPetsQuery(query), operations.listPets)),
    createPet: (request, body, options) =>
      Immediate.map(
        run(request, "createPet", (principal) =>
          Immediate.flatMap(PetInput.decodeNewPet(body), (pet) =>
            operations.createPet(
              pet,
              options?.idempotencyKey === undefined ? undefined : {
                idempotencyKey: options.idempotencyKey,
                idempotencyScope: principal.keyId,
                body
              }
            ))),
        // A replay is marked in `meta`.
        ({ meta, value: { pet, replayed } }) => ({ value: pet, meta: replayed ? { ...meta, idempotentReplayed: true } : meta })
      ),
    getPet: (request, id) => run(request, "getPet", () => Immediate.flatMap(PetInput.decodePetId(id), operations.getPet))
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
