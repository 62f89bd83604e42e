/**
 * The reference behaviour of a `PetRepository`: a plain array filtered, sorted
 * and sliced on every call (the model of the model-based contract test).
 *
 * @since 1.0.0
 */
import { Effect, Layer, Option, Ref } from "effect"
import { Pet, PetId } from "../../Pet.js"
import type { NewPet } from "../../Pet.js"
import type { ListPetsFilter, PetRepositoryService } from "../../PetRepository.js"
import { PetRepository } from "../../PetRepository.js"

/**
 * The animals matching `filter`, in ascending id order.
 *
 * @since 1.0.0
 */
export const list = (pets: ReadonlyArray<Pet>, filter: ListPetsFilter): ReadonlyArray<Pet> =>
  pets
    .filter((pet) =>
      (filter.status === undefined || pet.status === filter.status) &&
      (filter.afterId === undefined || pet.id > filter.afterId)
    )
    .sort((a, b) => a.id - b.id)
    .slice(0, filter.limit)

/**
 * @since 1.0.0
 */
export const findById = (pets: ReadonlyArray<Pet>, id: number): Option.Option<Pet> =>
  Option.fromNullable(pets.find((pet) => pet.id === id))

/**
 * The id the next insert gets: one more than the greatest id so far.
 *
 * @since 1.0.0
 */
export const nextId = (pets: ReadonlyArray<Pet>): PetId =>
  PetId.make(pets.reduce((max, pet) => Math.max(max, pet.id), 0) + 1)

/**
 * The animal `insert` stores for `newPet` under `id`.
 *
 * @since 1.0.0
 */
export const toPet = (id: PetId, newPet: NewPet): Pet =>
  new Pet({ id, name: newPet.name, categoryId: newPet.categoryId, status: newPet.status })

/**
 * A `PetRepository` on the model, holding `initial` (any ids, any order).
 *
 * @since 1.0.0
 */
export const make = (initial: Iterable<Pet> = []): Effect.Effect<PetRepositoryService> =>
  Effect.map(Ref.make<ReadonlyArray<Pet>>([...initial]), (ref) => ({
    insert: (newPet) =>
      Ref.modify(ref, (pets) => {
        const pet = toPet(nextId(pets), newPet)
        return [pet, [...pets, pet]]
      }),
    findById: (id) => Effect.map(Ref.get(ref), (pets) => findById(pets, id)),
    list: (filter) => Effect.map(Ref.get(ref), (pets) => list(pets, filter))
  }))

/**
 * @since 1.0.0
 */
export const layer = (initial: Iterable<Pet> = []): Layer.Layer<PetRepository> =>
  Layer.effect(PetRepository, make(initial))
