/**
 * The three operations of the interface, `listPets`, `createPet` and
 * `getPet`, on typed, decoded inputs (decode what a client sent with
 * `PetInput`). These are the trusted calls: no credential, no rate limit; for
 * calls on behalf of a client, see `GuardedPetOperations`.
 *
 * @since 1.0.0
 */
import { Context, Effect, Layer, Option } from "effect"
import type { InvalidRequest } from "./ApiError.js"
import { IdempotencyKeyInUse, IdempotencyKeyReused, PetNotFound } from "./ApiError.js"
import * as Idempotency from "./Idempotency.js"
import type { IdempotentCreateOutcome } from "./IdempotencyStore.js"
import { IdempotencyStore } from "./IdempotencyStore.js"
import type { ListPetsQuery, PetPage } from "./ListPetsQuery.js"
import { cursors as makeCursors } from "./ListPetsQuery.js"
import type { NewPet, Pet, PetId } from "./Pet.js"
import { PetRepository } from "./PetRepository.js"
import type { StoreError } from "./StoreError.js"
import { invalidRequest } from "./internal/decode.js"
import * as Tracing from "./internal/tracing.js"

/**
 * The names of the operations, as the interface calls them.
 *
 * @since 1.0.0
 * @category models
 */
export type OperationName = "listPets" | "createPet" | "getPet"

/**
 * The options of `createPet`.
 *
 * @since 1.0.0
 * @category models
 */
export interface CreatePetOptions {
  /**
   * An `Idempotency-Key` (1 to 255 visible ASCII characters, else
   * `InvalidRequest`): within 24 hours, the same body with the same key and
   * scope gets the first animal again instead of a new one, another body
   * `IdempotencyKeyReused`, and a request while the first is still being
   * processed `IdempotencyKeyInUse` (the rule: `Idempotency`). Needs an
   * `IdempotencyStore` (every store's layer provides one).
   */
  readonly idempotencyKey?: string | undefined
  /**
   * Whose keys these are: keys of different scopes are independent. Default
   * `""` (the host's own calls); guarded calls and the HTTP adapter use the
   * client's API key id.
   */
  readonly idempotencyScope?: string | undefined
  /**
   * The body as the client sent it, when `pet` was decoded from one: two
   * requests with one key are the same request when their bodies are the same
   * JSON value (so a body without `status` and one with `"status":
   * "available"` differ, the order of members does not matter). Default: the
   * `NewPet` itself.
   */
  readonly body?: unknown
}

/**
 * The result of `createPet`: the animal, and whether it is the one a first
 * request with the same key created (`replayed`) rather than a new one.
 *
 * @since 1.0.0
 * @category models
 */
export interface CreatePetOutcome {
  readonly pet: Pet
  readonly replayed: boolean
}

/**
 * The failures of `createPet`.
 *
 * @since 1.0.0
 * @category models
 */
export type CreatePetError = InvalidRequest | IdempotencyKeyReused | IdempotencyKeyInUse | StoreError

/**
 * @since 1.0.0
 * @category models
 */
export interface PetOperationsService {
  /** Lists animals: a page of `query.limit` after `query.cursor`, of `query.status` when given. */
  readonly listPets: (query: ListPetsQuery) => Effect.Effect<PetPage, InvalidRequest | StoreError>
  /**
   * Adds an animal; with `options.idempotencyKey`, at most once per key (see
   * `CreatePetOptions`): the outcome tells whether the animal is the one a
   * first request created (`replayed`), and the failures of a key's reuse
   * are added.
   */
  readonly createPet: {
    (pet: NewPet): Effect.Effect<CreatePetOutcome, StoreError>
    (pet: NewPet, options: CreatePetOptions | undefined): Effect.Effect<CreatePetOutcome, CreatePetError>
  }
  /** Reads one animal. */
  readonly getPet: (id: PetId) => Effect.Effect<Pet, PetNotFound | StoreError>
}

/**
 * @since 1.0.0
 * @category tags
 */
export class PetOperations extends Context.Tag("@animal-store/core/PetOperations")<
  PetOperations,
  PetOperationsService
>() {}

const foreignCursor = () =>
  invalidRequest("query", [{ path: "cursor", message: "is not a cursor of this listing (altered, or issued for another status)" }])

const invalidKey = invalidRequest("request", [{
  path: "Idempotency-Key",
  message: `must be 1 to ${Idempotency.maxKeyLength} visible ASCII characters`
}])

const orNotFound = (id: PetId) => (pet: Option.Option<Pet>): Effect.Effect<Pet, PetNotFound> =>
  Option.isSome(pet) ? Effect.succeed(pet.value) : Effect.fail(new PetNotFound({ id }))

const fromStoreOutcome = (
  outcome: IdempotentCreateOutcome
): Effect.Effect<CreatePetOutcome, IdempotencyKeyReused | IdempotencyKeyInUse> => {
  switch (outcome._tag) {
    case "Created":
      return Effect.succeed({ pet: outcome.pet, replayed: false })
    case "Replayed":
      return Effect.succeed({ pet: outcome.pet, replayed: true })
    case "Reused":
      return Effect.fail(new IdempotencyKeyReused())
    case "InUse":
      return Effect.fail(new IdempotencyKeyInUse())
  }
}

const created = (pet: Pet): CreatePetOutcome => ({ pet, replayed: false })

/**
 * Builds the operations on a `PetRepository`. A keyed `createPet` uses the
 * context's `IdempotencyStore` (without one it is a defect) and the `Clock`
 * of the building fiber.
 *
 * @since 1.0.0
 * @category constructors
 */
export const make: Effect.Effect<PetOperationsService, never, PetRepository> = Effect.gen(function*() {
  const repository = yield* PetRepository
  const idempotency = yield* Effect.serviceOption(IdempotencyStore)
  const clock = yield* Effect.clock
  const cursors = yield* makeCursors
  const fn = yield* Tracing.fn

  /** A keyed create: the key is validated before the store is reached, so a refusal leaves no record. */
  const createKeyed = (
    pet: NewPet,
    options: CreatePetOptions,
    key: string
  ): Effect.Effect<CreatePetOutcome, CreatePetError> => {
    if (!Idempotency.isKey(key)) return Effect.fail(invalidKey)
    if (Option.isNone(idempotency)) {
      return Effect.dieMessage("createPet with an idempotency key needs an IdempotencyStore in the context")
    }
    const store = idempotency.value
    const fingerprint = Idempotency.fingerprint("body" in options ? options.body : pet)
    return clock.currentTimeMillis.pipe(
      Effect.flatMap((now) =>
        store.createPet({
          scope: options.idempotencyScope ?? "",
          key,
          pet,
          now,
          decide: Idempotency.decide(fingerprint, now)
        })
      ),
      Effect.flatMap(fromStoreOutcome)
    )
  }

  return {
    listPets: fn("PetOperations.listPets")((query: ListPetsQuery): Effect.Effect<PetPage, InvalidRequest | StoreError> => {
      let afterId: PetId | undefined
      if (query.cursor !== undefined) {
        afterId = cursors.open(query.cursor, query.status)
        if (afterId === undefined) return Effect.fail(foreignCursor())
      }
      return Effect.map(repository.list({ status: query.status, afterId, limit: query.limit + 1 }), (found) => {
        if (found.length <= query.limit) return { pets: found, nextCursor: undefined }
        const pets = found.slice(0, query.limit)
        return { pets, nextCursor: cursors.seal(query.status, pets[pets.length - 1]!.id) }
      })
    }),
    createPet: fn("PetOperations.createPet")((pet: NewPet, options?: CreatePetOptions) =>
      options?.idempotencyKey === undefined
        ? Effect.map(repository.insert(pet), created)
        : createKeyed(pet, options, options.idempotencyKey)
    ) as PetOperationsService["createPet"],
    getPet: fn("PetOperations.getPet")((id: PetId) => Effect.flatMap(repository.findById(id), orNotFound(id)))
  }
})

/**
 * @since 1.0.0
 * @category layers
 */
export const layer: Layer.Layer<PetOperations, never, PetRepository> = Layer.effect(PetOperations, make)
