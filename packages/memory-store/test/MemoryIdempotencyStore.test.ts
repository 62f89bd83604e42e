import { Idempotency, IdempotencyStore, Pet, PetRepository, StoreError } from "@animal-store/core"
import { testIdempotencyStore } from "@animal-store/core/test"
import { describe, expect, it } from "@effect/vitest"
import { Deferred, Effect, Fiber, Layer } from "effect"
import { MemoryIdempotencyStore, MemoryPetRepository, MemoryStore } from "../src/index.js"

testIdempotencyStore("memory", MemoryStore.layer)

const rex: Pet.NewPet = { name: "Rex", categoryId: Pet.CategoryId.make(1), status: "available" }
const tom: Pet.NewPet = { name: "Tom", categoryId: Pet.CategoryId.make(2), status: "sold" }

const create = (store: IdempotencyStore.IdempotencyStoreService, key: string, pet = rex) =>
  store.createPet({ scope: "s", key, pet, now: 0, decide: Idempotency.decide(Idempotency.fingerprint(pet), 0) })

/** The record of a key as `decide` sees it. */
const peek = (store: IdempotencyStore.IdempotencyStoreService, key: string) => {
  let seen: IdempotencyStore.IdempotencyRecord | undefined
  return Effect.as(
    store.createPet({
      scope: "s",
      key,
      pet: rex,
      now: 0,
      decide: (record) => {
        seen = record
        return { _tag: "Reused" }
      }
    }),
    undefined
  ).pipe(Effect.map(() => seen))
}

/** The memory store on a repository whose inserts signal `entered`, wait for `gate`, then fail when `fail` is set. */
const gated = (entered: Deferred.Deferred<void>, gate: Deferred.Deferred<void>, fail: boolean) =>
  MemoryIdempotencyStore.layer.pipe(Layer.provideMerge(Layer.effect(
    PetRepository.PetRepository,
    Effect.map(MemoryPetRepository.make, (inner) => ({
      ...inner,
      insert: (pet: Pet.NewPet) =>
        Effect.zipRight(
          Effect.zipRight(Deferred.succeed(entered, undefined), Deferred.await(gate)),
          fail ? Effect.fail(new StoreError.StoreError({ reason: "Unavailable", message: "down" })) : inner.insert(pet)
        )
    }))
  )))

describe("MemoryIdempotencyStore", () => {
  it.effect("while the first call inserts its animal, calls with the same key find it in use; then they replay it", () =>
    Effect.gen(function*() {
      const entered = yield* Deferred.make<void>()
      const gate = yield* Deferred.make<void>()
      yield* Effect.gen(function*() {
        const store = yield* IdempotencyStore.IdempotencyStore
        const pets = yield* PetRepository.PetRepository
        const first = yield* Effect.fork(create(store, "k"))
        yield* Deferred.await(entered)
        expect((yield* peek(store, "k"))?._tag).toBe("InProgress")
        expect(yield* create(store, "k")).toEqual({ _tag: "InUse" })
        expect(yield* create(store, "k", tom)).toEqual({ _tag: "InUse" })
        yield* Deferred.succeed(gate, undefined)
        const outcome = yield* Fiber.join(first)
        expect(outcome._tag).toBe("Created")
        const pet = (outcome as { readonly pet: Pet.Pet }).pet
        expect(yield* create(store, "k")).toEqual({ _tag: "Replayed", pet })
        expect(yield* create(store, "k", tom)).toEqual({ _tag: "Reused" })
        expect(yield* pets.list({ limit: 10 })).toEqual([pet])
      }).pipe(Effect.provide(gated(entered, gate, false)))
    }))

  it.effect("a failed insert leaves no record: the key is free again", () =>
    Effect.gen(function*() {
      const entered = yield* Deferred.make<void>()
      const gate = yield* Deferred.make<void>()
      yield* Deferred.succeed(gate, undefined)
      yield* Effect.gen(function*() {
        const store = yield* IdempotencyStore.IdempotencyStore
        const error = yield* Effect.flip(create(store, "k"))
        expect(error).toBeInstanceOf(StoreError.StoreError)
        expect(yield* peek(store, "k")).toBeUndefined()
      }).pipe(Effect.provide(gated(entered, gate, true)))
    }))

  it.effect("purging stops at the first record that has not expired", () =>
    Effect.gen(function*() {
      const store = yield* IdempotencyStore.IdempotencyStore
      for (let i = 0; i < 3; i++) {
        yield* store.createPet({
          scope: "s",
          key: `k${i}`,
          pet: rex,
          now: i,
          decide: Idempotency.decide(Idempotency.fingerprint(rex), i)
        })
      }
      expect(yield* store.purge(Idempotency.retentionMillis, 10)).toBe(1)
      expect(yield* store.purge(Idempotency.retentionMillis + 2, 10)).toBe(2)
    }).pipe(Effect.provide(MemoryStore.layer)))
})
