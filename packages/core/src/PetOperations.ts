/**
 * The three operations of the interface, `listPets`, `createPet` and
 * `getPet`, as one service. Each takes untrusted input and validates it here,
 * so every adapter validates the same way.
 *
 * These are the trusted calls: no credential, no rate limit. For calls on
 * behalf of a client, see `GuardedPetOperations`.
 *
 * @since 1.0.0
 */
import { Context, Effect, Layer, Option, Schema } from "effect"
import type { InvalidRequest } from "./ApiError.js"
import { PetNotFound } from "./ApiError.js"
import type { PetPage } from "./ListPetsQuery.js"
import { encodeCursor, ListPetsQuery } from "./ListPetsQuery.js"
import type { Pet, PetId } from "./Pet.js"
import { defaultStatus, NewPet, PetIdInput, PetStatus } from "./Pet.js"
import { PetRepository } from "./PetRepository.js"
import type { StoreError } from "./StoreError.js"
import { decodeInput } from "./internal/decode.js"
import { withoutStackTrace } from "./internal/expected.js"

/**
 * The names of the operations, as the interface calls them.
 *
 * @since 1.0.0
 * @category models
 */
export type OperationName = "listPets" | "createPet" | "getPet"

/**
 * @since 1.0.0
 * @category models
 */
export interface PetOperationsService {
  /** Lists animals; `query` is `{limit?, status?, cursor?}` with `limit` a number or a decimal string. */
  readonly listPets: (query: unknown) => Effect.Effect<PetPage, InvalidRequest | StoreError>
  /** Adds an animal from a `NewPet` body. */
  readonly createPet: (body: unknown) => Effect.Effect<Pet, InvalidRequest | StoreError>
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

// `id` is a decoded `PetId`: no need to validate it again.
const makeNotFound = (id: PetId) => new PetNotFound({ id }, true)

const orNotFound = (id: PetId) => (pet: Option.Option<Pet>): Effect.Effect<Pet, PetNotFound> =>
  Option.isSome(pet) ? Effect.succeed(pet.value) : Effect.fail(withoutStackTrace(makeNotFound, id))

/**
 * Builds the operations on a `PetRepository`.
 *
 * @since 1.0.0
 * @category constructors
 */
export const make: Effect.Effect<PetOperationsService, never, PetRepository> = Effect.gen(function*() {
  const repository = yield* PetRepository
  return {
    listPets: (input) =>
      Effect.gen(function*() {
        const query = yield* decodeQuery(input)
        const found = yield* repository.list({ status: query.status, afterId: query.cursor, limit: query.limit + 1 })
        // One more than `limit` is asked for: when it comes, a next page follows the last one kept.
        return {
          pets: found.slice(0, query.limit),
          nextCursor: found.length > query.limit ? encodeCursor(found[query.limit - 1]!.id) : undefined
        }
      }),
    createPet: (body) => Effect.flatMap(decodeNewPet(body), repository.insert),
    getPet: (input) =>
      Effect.flatMap(decodePetId(input), (id) => Effect.flatMap(repository.findById(id), orNotFound(id)))
  }
})

/**
 * @since 1.0.0
 * @category layers
 */
export const layer: Layer.Layer<PetOperations, never, PetRepository> = Layer.effect(PetOperations, make)
