import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Layer } from "effect"
import { IdempotencyKeyInUse, IdempotencyKeyReused, InvalidRequest, PetNotFound } from "../src/ApiError.js"
import type { IdempotencyRecord } from "../src/IdempotencyStore.js"
import { IdempotencyStore } from "../src/IdempotencyStore.js"
import type { Pet } from "../src/Pet.js"
import * as PetOperations from "../src/PetOperations.js"
import { PetRepository } from "../src/PetRepository.js"
import * as ModelPetRepository from "../src/testing/internal/ModelPetRepository.js"
import { ClientOperations } from "./internal/operations.js"

/** An IdempotencyStore on a Map that runs the rule and stores what it decides (`answer` overrides the store's outcome). */
const mapStore = (answer?: "InUse") =>
  Layer.effect(
    IdempotencyStore,
    Effect.map(PetRepository, (repository) => {
      const records = new Map<string, IdempotencyRecord>()
      return {
        createPet: ({ decide, key, pet, scope }) =>
          Effect.gen(function*() {
            if (answer !== undefined) return { _tag: answer } as const
            const decision = decide(records.get(`${scope}\u0000${key}`))
            if (decision._tag !== "Create") return decision
            const created = yield* repository.insert(pet)
            records.set(`${scope}\u0000${key}`, { _tag: "Completed", fingerprint: decision.fingerprint, expiresAt: decision.expiresAt, pet: created })
            return { _tag: "Created", pet: created } as const
          }),
        purge: () => Effect.succeed(0)
      }
    })
  )

const operations = (pets: ReadonlyArray<Pet> = [], idempotency: "none" | "map" | "InUse" = "map") => {
  const repository = ModelPetRepository.layer(pets)
  const base = PetOperations.layer.pipe(Layer.provide(repository))
  return idempotency === "none"
    ? base
    : PetOperations.layer.pipe(Layer.provide(Layer.merge(repository, Layer.provide(mapStore(idempotency === "InUse" ? "InUse" : undefined), repository))))
}

const run = <A, E>(effect: Effect.Effect<A, E, PetOperations.PetOperations>, layer = operations()) =>
  Effect.provide(effect, layer)

const ops = ClientOperations

describe("PetOperations outcomes", () => {
  it.effect("a createPet without a key is created, not replayed; with options undefined too", () =>
    run(Effect.gen(function*() {
      const o = yield* ops
      const outcome = yield* o.createPetOutcome({ name: "Rex", categoryId: 1 })
      expect(outcome).toEqual({ pet: expect.objectContaining({ name: "Rex", categoryId: 1, status: "available" }), replayed: false })
      expect(yield* o.createPet({ name: "Tom", categoryId: 2 }, undefined)).toMatchObject({ name: "Tom" })
    })))

  it.effect("a keyed createPet is created, then replayed; another body is refused as reused", () =>
    run(Effect.gen(function*() {
      const o = yield* ops
      const first = yield* o.createPetOutcome({ name: "Rex", categoryId: 1 }, { idempotencyKey: "k-1", idempotencyScope: "key_a" })
      expect(first.replayed).toBe(false)
      const again = yield* o.createPetOutcome({ categoryId: 1, name: "Rex" }, { idempotencyKey: "k-1", idempotencyScope: "key_a" })
      expect(again).toEqual({ pet: first.pet, replayed: true })
      const other = yield* Effect.flip(o.createPetOutcome({ name: "Tom", categoryId: 1 }, { idempotencyKey: "k-1", idempotencyScope: "key_a" }))
      expect(other).toBeInstanceOf(IdempotencyKeyReused)
      const elsewhere = yield* o.createPetOutcome({ name: "Tom", categoryId: 1 }, { idempotencyKey: "k-1", idempotencyScope: "key_b" })
      expect(elsewhere.replayed).toBe(false)
      expect(elsewhere.pet.id).not.toBe(first.pet.id)
    })))

  it.effect("a keyed createPet while the first is in progress is refused as in use", () =>
    run(
      Effect.gen(function*() {
        const o = yield* ops
        expect(yield* Effect.flip(o.createPetOutcome({ name: "Rex", categoryId: 1 }, { idempotencyKey: "k" }))).toBeInstanceOf(
          IdempotencyKeyInUse
        )
      }),
      operations([], "InUse")
    ))

  it.effect("a malformed key is an invalid request naming the header and its rule", () =>
    run(Effect.gen(function*() {
      const o = yield* ops
      const error = yield* Effect.flip(o.createPet({ name: "Rex", categoryId: 1 }, { idempotencyKey: "two words" }))
      expect(error).toBeInstanceOf(InvalidRequest)
      expect((error as InvalidRequest).details).toEqual([
        { path: "Idempotency-Key", message: "must be 1 to 255 visible ASCII characters" }
      ])
    })))

  it.effect("a keyed createPet without an IdempotencyStore is a defect that says so", () =>
    run(
      Effect.gen(function*() {
        const o = yield* ops
        const exit = yield* Effect.exit(o.createPet({ name: "Rex", categoryId: 1 }, { idempotencyKey: "k" }))
        expect(Exit.isFailure(exit) && String(exit.cause)).toContain("needs an IdempotencyStore")
      }),
      operations([], "none")
    ))

  it.effect("an altered cursor is refused, naming the cursor", () =>
    run(Effect.gen(function*() {
      const o = yield* ops
      const error = yield* Effect.flip(o.listPets({ cursor: `c1.AQ.${"A".repeat(22)}` }))
      expect((error as InvalidRequest).details).toEqual([
        { path: "cursor", message: "is not a cursor of this listing (altered, or issued for another status)" }
      ])
      expect((error as InvalidRequest).message).toBe(
        "Invalid query: cursor is not a cursor of this listing (altered, or issued for another status)"
      )
    })))

  it.effect("a page holding exactly the animals left has no next cursor; one more animal gives one", () =>
    Effect.gen(function*() {
      const pets = (n: number) =>
        Array.from({ length: n }, (_, i) => ({ id: i + 1, name: `p${i}`, categoryId: 1, status: "available" }) as unknown as Pet)
      const exact = yield* run(Effect.flatMap(ops, (o) => o.listPets({ limit: 3 })), operations(pets(3)))
      expect(exact.pets).toHaveLength(3)
      expect(exact.nextCursor).toBeUndefined()
      yield* run(
        Effect.gen(function*() {
          const o = yield* ops
          const more = yield* o.listPets({ limit: 3 })
          expect(more.pets.map((pet) => pet.id)).toEqual([1, 2, 3])
          expect(more.nextCursor).toMatch(/^c1\./)
          const rest = yield* o.listPets({ limit: 3, cursor: more.nextCursor })
          expect(rest.pets.map((pet) => pet.id)).toEqual([4])
          expect(rest.nextCursor).toBeUndefined()
        }),
        operations(pets(4))
      )
    }))

  it.effect("an unknown id is not found, carrying the id", () =>
    run(Effect.gen(function*() {
      const o = yield* ops
      const error = yield* Effect.flip(o.getPet(42))
      expect(error).toBeInstanceOf(PetNotFound)
      expect((error as PetNotFound).id).toBe(42)
    })))
})
