import { describe, expect, it } from "@effect/vitest"
import { Effect, Option } from "effect"
import * as fc from "effect/FastCheck"
import { PetId } from "../src/Pet.js"
import { PetRepository } from "../src/PetRepository.js"
import * as Arbitraries from "../src/testing/internal/arbitraries.js"
import * as ModelPetRepository from "../src/testing/internal/ModelPetRepository.js"

// The model is the oracle of the store contract and the repository under core's
// own tests, so it is checked here against what the contract states, never
// against itself.
describe("ModelPetRepository", () => {
  it.prop(
    "list gives the lowest ids above afterId with the status, ascending, at most limit",
    {
      pets: Arbitraries.pets(40),
      status: fc.option(Arbitraries.status, { nil: undefined }),
      afterId: fc.option(Arbitraries.id, { nil: undefined }),
      limit: fc.integer({ min: 1, max: 45 })
    },
    ({ afterId, limit, pets, status }) => {
      const matches = (pet: (typeof pets)[number]) =>
        (status === undefined || pet.status === status) && (afterId === undefined || pet.id > afterId)
      const listed = ModelPetRepository.list(pets, {
        status,
        afterId: afterId === undefined ? undefined : PetId.make(afterId),
        limit
      })
      const ids = listed.map((pet) => pet.id)
      expect(listed.every(matches)).toBe(true)
      expect(ids.every((id, i) => i === 0 || ids[i - 1]! < id)).toBe(true)
      expect(listed.length).toBe(Math.min(limit, pets.filter(matches).length))
      const last = ids[ids.length - 1] ?? 0
      expect(pets.filter((pet) => matches(pet) && !ids.includes(pet.id)).every((pet) => pet.id > last)).toBe(true)
      for (const pet of listed) expect(pets).toContain(pet)
    }
  )

  it.prop(
    "insert gives ids above every id held, in increasing order; findById finds exactly what is held",
    {
      initial: Arbitraries.pets(20).filter((pets) => pets.every((pet) => pet.id < Arbitraries.maxId - 10)),
      added: fc.array(Arbitraries.newPet, { maxLength: 6 }),
      probe: Arbitraries.id
    },
    ({ added, initial, probe }) =>
      Effect.gen(function*() {
        const repository = yield* PetRepository
        const greatest = Math.max(0, ...initial.map((pet) => pet.id))
        const inserted = yield* Effect.forEach(added, repository.insert)
        expect(inserted.map((pet) => pet.id)).toEqual(added.map((_, i) => greatest + i + 1))
        expect(inserted.map(({ categoryId, name, status }) => ({ name, categoryId, status }))).toEqual(added)
        const held = [...initial, ...inserted]
        for (const pet of held) expect(yield* repository.findById(pet.id)).toEqual(Option.some(pet))
        expect(yield* repository.findById(PetId.make(probe))).toEqual(
          Option.fromNullable(held.find((pet) => pet.id === probe))
        )
      }).pipe(Effect.provide(ModelPetRepository.layer(initial)), Effect.runSync)
  )
})
