/**
 * The storage port for animals: core reaches animals only through it.
 *
 * @since 1.0.0
 */
import type { Effect, Option } from "effect"
import { Context } from "effect"
import type { NewPet, Pet, PetId, PetStatus } from "./Pet.js"
import type { StoreError } from "./StoreError.js"

/**
 * Which animals to list: with `status`, ids after `afterId`, at most `limit`, in ascending id order.
 *
 * @since 1.0.0
 * @category models
 */
export interface ListPetsFilter {
  readonly status?: PetStatus | undefined
  readonly afterId?: PetId | undefined
  readonly limit: number
}

/**
 * @since 1.0.0
 * @category models
 */
export interface PetRepositoryService {
  /** Stores a new animal under the next id (ids increase and are never reused). */
  readonly insert: (pet: NewPet) => Effect.Effect<Pet, StoreError>
  /** The animal with this id, if any. */
  readonly findById: (id: PetId) => Effect.Effect<Option.Option<Pet>, StoreError>
  /** Animals matching the filter, in ascending id order. */
  readonly list: (filter: ListPetsFilter) => Effect.Effect<ReadonlyArray<Pet>, StoreError>
}

/**
 * @since 1.0.0
 * @category tags
 */
export class PetRepository extends Context.Tag("@animal-store/core/PetRepository")<
  PetRepository,
  PetRepositoryService
>() {}
