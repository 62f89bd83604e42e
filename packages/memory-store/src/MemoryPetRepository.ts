/**
 * `PetRepository` in memory: ids from 1 upwards, so appending keeps one array
 * of all animals and one per status in id order; a page is a binary search and a slice.
 *
 * @since 1.0.0
 */
import { Pet, PetRepository } from "@animal-store/core"
import { Effect, Layer, Option, Ref } from "effect"

/** Append-only indexes in id order, changed only inside `Ref.modify`; `all[i]` has id `i + 1`. */
interface Pets {
  readonly all: Array<Pet.Pet>
  readonly byStatus: Record<Pet.PetStatus, Array<Pet.Pet>>
}

/** The position of the first animal whose id is greater than `id`. */
const firstAfter = (pets: ReadonlyArray<Pet.Pet>, id: number): number => {
  let low = 0
  let high = pets.length
  while (low < high) {
    const middle = (low + high) >>> 1
    if (pets[middle]!.id <= id) low = middle + 1
    else high = middle
  }
  return low
}

/**
 * A new, empty repository.
 *
 * @since 1.0.0
 * @category constructors
 */
export const make: Effect.Effect<PetRepository.PetRepositoryService> = Effect.map(
  Effect.suspend(() => Ref.make<Pets>({ all: [], byStatus: { available: [], pending: [], sold: [] } })),
  (ref) => ({
    insert: (newPet) =>
      Ref.modify(ref, (pets) => {
        const { categoryId, name, status } = newPet
        const pet = new Pet.Pet({ id: Pet.PetId.make(pets.all.length + 1), name, categoryId, status })
        pets.all.push(pet)
        pets.byStatus[pet.status].push(pet)
        return [pet, pets]
      }),
    findById: (id) =>
      Effect.map(Ref.get(ref), ({ all }) => {
        const candidate = all[firstAfter(all, id) - 1]
        return candidate?.id === id ? Option.some(candidate) : Option.none()
      }),
    list: ({ afterId, limit, status }) =>
      Effect.map(Ref.get(ref), (pets) => {
        const candidates = status === undefined ? pets.all : pets.byStatus[status]
        const start = afterId === undefined ? 0 : firstAfter(candidates, afterId)
        return candidates.slice(start, start + limit)
      })
  })
)

/**
 * A layer with a new, empty repository each time it is built.
 *
 * @since 1.0.0
 * @category layers
 */
export const layer: Layer.Layer<PetRepository.PetRepository> = Layer.effect(PetRepository.PetRepository, make)
