import { ApiKeyStore, Pet, PetRepository, RateLimitStore } from "@animal-store/core"
import { countCall, testCursorSecret, testPetRepository } from "@animal-store/core/test"
import { describe, expect, it } from "@effect/vitest"
import { Array as Arr, Effect } from "effect"
import { MemoryPetRepository, MemoryStore } from "../src/index.js"

testPetRepository("memory", MemoryPetRepository.layer)
testCursorSecret("memory", MemoryStore.layer)

const newPet = (i: number): Pet.NewPet => ({
  name: `pet ${i}`,
  categoryId: Pet.CategoryId.make(1),
  status: Pet.PetStatus.literals[i % 3]!
})

const insertAll = (n: number) =>
  Effect.flatMap(PetRepository.PetRepository, (repository) => Effect.forEach(Arr.makeBy(n, newPet), repository.insert))

describe("MemoryPetRepository", () => {
  it.effect("assigns ids 1, 2, 3, ... in insertion order", () =>
    Effect.gen(function*() {
      const pets = yield* insertAll(10)
      expect(pets.map((pet) => pet.id)).toEqual(Arr.range(1, 10))
    }).pipe(Effect.provide(MemoryPetRepository.layer)))

  it.effect("pages anywhere in a large store start right after the cursor, in the status index", () =>
    Effect.gen(function*() {
      const repository = yield* PetRepository.PetRepository
      const n = 50_000
      const pets = yield* insertAll(n)
      for (let i = 0; i < 200; i++) {
        const status = Pet.PetStatus.literals[i % 3]!
        const afterId = Pet.PetId.make(1 + ((i * 7919) % (n - 1)))
        const page = yield* repository.list({ status, afterId, limit: 21 })
        const expected = pets.filter((pet) => pet.status === status && pet.id > afterId).slice(0, 21)
        expect(page.map((pet) => pet.id)).toEqual(expected.map((pet) => pet.id))
      }
      // The cost per page (O(log n + limit)) is measured by `pnpm bench` at 10,000 and 1,000,000 pets.
    }).pipe(Effect.provide(MemoryPetRepository.layer)))
})

describe("MemoryStore", () => {
  it.effect("gives a new, independent store on each build", () =>
    Effect.gen(function*() {
      const first = yield* Effect.provide(insertAll(3), MemoryStore.layer)
      const second = yield* Effect.provide(insertAll(1), MemoryStore.layer)
      expect(first.map((pet) => pet.id)).toEqual([1, 2, 3])
      expect(second.map((pet) => pet.id)).toEqual([1])
      const keys = yield* Effect.provide(
        Effect.flatMap(ApiKeyStore.ApiKeyStore, (store) => store.list),
        MemoryStore.layer
      )
      expect(keys).toEqual([])
      const count = Effect.flatMap(RateLimitStore.RateLimitStore, (store) =>
        store.modify("subject", countCall))
      expect(yield* Effect.provide(count, MemoryStore.layer)).toBe(1)
      expect(yield* Effect.provide(count, MemoryStore.layer)).toBe(1)
    }))
})
