/**
 * The three operations of the interface, `listPets`, `createPet` and
 * `getPet`, as one service. Each takes untrusted input and validates it here,
 * so every adapter validates the same way.
 *
 * These are the trusted calls: no credential, no rate limit. For calls on
 * behalf of a client, see `GuardedPetOperations`. Cursors are sealed with the
 * `ListPetsQuery.CursorSecret` of the context (every store provides one; a
 * random one of this `PetOperations` when absent).
 *
 * @since 1.0.0
 */
import { Clock, Context, Effect, Layer, Option, Schema } from "effect"
import type { IdempotencyKeyInUse, IdempotencyKeyReused, InvalidRequest, PetNotFound } from "./ApiError.js"
import * as Idempotency from "./Idempotency.js"
import type { IdempotentCreateOutcome } from "./IdempotencyStore.js"
import { IdempotencyStore } from "./IdempotencyStore.js"
import type { PetPage } from "./ListPetsQuery.js"
import { cursors as makeCursors, ListPetsQuery } from "./ListPetsQuery.js"
import type { Pet, PetId } from "./Pet.js"
import { defaultStatus, NewPet, PetIdInput, PetStatus } from "./Pet.js"
import { PetRepository } from "./PetRepository.js"
import type { StoreError } from "./StoreError.js"
import { decodeInput, invalidRequest } from "./internal/decode.js"
import * as ExpectedErrors from "./internal/expectedErrors.js"

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
}

/**
 * The result of `createPetOutcome`: the animal, and whether it is the one a
 * first request with the same key created (`replayed`) rather than a new one.
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
  /** Lists animals; `query` is `{limit?, status?, cursor?}` with `limit` a number or a decimal string. */
  readonly listPets: (query: unknown) => Effect.Effect<PetPage, InvalidRequest | StoreError>
  /**
   * Adds an animal from a `NewPet` body; with `options.idempotencyKey`, at
   * most once per key (see `CreatePetOptions`), which adds the failures of a
   * key's reuse.
   */
  readonly createPet: {
    (body: unknown): Effect.Effect<Pet, InvalidRequest | StoreError>
    (body: unknown, options: CreatePetOptions | undefined): Effect.Effect<Pet, CreatePetError>
  }
  /** `createPet`, also telling whether the animal was replayed (for `Idempotent-Replayed`). */
  readonly createPetOutcome: (
    body: unknown,
    options?: CreatePetOptions
  ) => Effect.Effect<CreatePetOutcome, CreatePetError>
  /** Reads one animal; `id` is a number or a decimal string. */
  readonly getPet: (id: unknown) => Effect.Effect<Pet, InvalidRequest | PetNotFound | StoreError>
}

/**
 * @since 1.0.0
 * @category tags
 */
export class PetOperations extends Context.Tag("@animal-store/core/PetOperations")<
  PetOperations,
  PetOperationsService
>() {}

const decodeQuery = decodeInput(ListPetsQuery, "query")
const decodePetId = decodeInput(PetIdInput, "pet id")

// `NewPet` decoded in two steps: its fields as sent, with `status` optional
// (the same rules and issues), then the default `status`. Decoding `NewPet`
// in one step validates every field again after filling in the default,
// which doubled the cost of each `createPet`.
const NewPetFields = Schema.Struct({
  ...NewPet.fields,
  status: Schema.optionalWith(PetStatus, { exact: true })
}).annotations({ identifier: "NewPet" }) // decodeInput refuses other properties
const decodeNewPetFields = decodeInput(NewPetFields, "pet")
const withDefaultStatus = ({ categoryId, name, status = defaultStatus }: typeof NewPetFields.Type): NewPet => ({
  name,
  categoryId,
  status
})
const decodeNewPet = (body: unknown): Effect.Effect<NewPet, InvalidRequest> =>
  Effect.map(decodeNewPetFields(body), withDefaultStatus)

const foreignCursor = () =>
  invalidRequest("query", [{ path: "cursor", message: "is not a cursor of this listing (altered, or issued for another status)" }])

const orNotFound = (id: PetId) => (pet: Option.Option<Pet>): Effect.Effect<Pet, PetNotFound> =>
  Option.isSome(pet) ? Effect.succeed(pet.value) : Effect.fail(ExpectedErrors.petNotFound(id))

const invalidKey = invalidRequest("request", [{
  path: "Idempotency-Key",
  message: `must be 1 to ${Idempotency.maxKeyLength} visible ASCII characters`
}])

const fromStoreOutcome = (
  outcome: IdempotentCreateOutcome
): Effect.Effect<CreatePetOutcome, IdempotencyKeyReused | IdempotencyKeyInUse> => {
  switch (outcome._tag) {
    case "Created":
      return Effect.succeed({ pet: outcome.pet, replayed: false })
    case "Replayed":
      return Effect.succeed({ pet: outcome.pet, replayed: true })
    case "Reused":
      return Effect.fail(ExpectedErrors.idempotencyKeyReused())
    case "InUse":
      return Effect.fail(ExpectedErrors.idempotencyKeyInUse())
  }
}

const created = (pet: Pet): CreatePetOutcome => ({ pet, replayed: false })

/**
 * Builds the operations on a `PetRepository`. Keyed `createPet` calls use the
 * `IdempotencyStore` of the context (every store's layer provides one, and
 * `AnimalStore.layer` requires it); without one, a keyed call is a defect.
 *
 * @since 1.0.0
 * @category constructors
 */
export const make: Effect.Effect<PetOperationsService, never, PetRepository> = Effect.gen(function*() {
  const repository = yield* PetRepository
  const idempotency = yield* Effect.serviceOption(IdempotencyStore)

  /** A keyed create: the key, then the body, are validated before the store is reached, so a refusal leaves no record. */
  const createKeyed = (
    body: unknown,
    key: string,
    scope: string
  ): Effect.Effect<CreatePetOutcome, CreatePetError> => {
    if (!Idempotency.isKey(key)) return Effect.fail(invalidKey)
    if (Option.isNone(idempotency)) {
      return Effect.dieMessage("createPet with an idempotency key needs an IdempotencyStore in the context")
    }
    const store = idempotency.value
    return Effect.flatMap(decodeNewPet(body), (pet) =>
      Effect.flatMap(Clock.currentTimeMillis, (now) =>
        Effect.flatMap(
          store.createPet({ scope, key, pet, now, decide: Idempotency.decide(Idempotency.fingerprint(body), now) }),
          fromStoreOutcome
        )))
  }

  const createPetOutcome = (body: unknown, options?: CreatePetOptions) =>
    options?.idempotencyKey === undefined
      ? Effect.map(Effect.flatMap(decodeNewPet(body), repository.insert), created)
      : createKeyed(body, options.idempotencyKey, options.idempotencyScope ?? "")

  const cursors = yield* makeCursors
  return {
    listPets: (input) =>
      Effect.gen(function*() {
        const query = yield* decodeQuery(input)
        let afterId: PetId | undefined
        if (query.cursor !== undefined) {
          afterId = cursors.open(query.cursor, query.status)
          if (afterId === undefined) return yield* Effect.fail(foreignCursor())
        }
        const found = yield* repository.list({ status: query.status, afterId, limit: query.limit + 1 })
        const pets = found.length > query.limit ? found.slice(0, query.limit) : found
        const last = pets[pets.length - 1]
        return {
          pets,
          nextCursor: found.length > query.limit && last !== undefined ? cursors.seal(query.status, last.id) : undefined
        }
      }),
    createPet: ((body: unknown, options?: CreatePetOptions): Effect.Effect<Pet, CreatePetError> =>
      options?.idempotencyKey === undefined
        ? Effect.flatMap(decodeNewPet(body), repository.insert)
        : Effect.map(
          createKeyed(body, options.idempotencyKey, options.idempotencyScope ?? ""),
          (outcome) => outcome.pet
        )) as PetOperationsService["createPet"],
    createPetOutcome,
    getPet: (input) =>
      Effect.flatMap(decodePetId(input), (id) => Effect.flatMap(repository.findById(id), orNotFound(id)))
  }
})

/**
 * @since 1.0.0
 * @category layers
 */
export const layer: Layer.Layer<PetOperations, never, PetRepository> = Layer.effect(PetOperations, make)
