/**
 * The contract every `PetRepository` keeps, as a test suite a store package
 * runs against its own layer.
 *
 * @since 1.0.0
 */
import { describe, expect, it } from "@effect/vitest"
import type { Layer } from "effect"
import { Array as Arr, Effect, Equal, Hash, Option, Runtime } from "effect"
import * as fc from "effect/FastCheck"
import type { NewPet } from "../Pet.js"
import { CategoryId, Pet, PetId, PetStatus } from "../Pet.js"
import type { ListPetsFilter, PetRepositoryService } from "../PetRepository.js"
import { PetRepository } from "../PetRepository.js"
import * as Arbitraries from "./internal/arbitraries.js"
import * as ModelPetRepository from "./internal/ModelPetRepository.js"

/**
 * Declares a `describe` block that checks a `PetRepository` layer against the
 * contract, model-based test included; each build of `layer` must give an empty store.
 *
 * @since 1.0.0
 * @category contracts
 */
export const testPetRepository = (name: string, layer: Layer.Layer<PetRepository, unknown>): void => {
  describe(`PetRepository contract (${name})`, () => {
    it.effect("insert stores the animal under a new id and returns it", () =>
      Effect.gen(function*() {
        const repository = yield* PetRepository
        for (const newPet of edgeCases) {
          const pet = yield* repository.insert(newPet)
          expect(pet).toBeInstanceOf(Pet)
          expect(Number.isSafeInteger(pet.id) && pet.id >= 1).toBe(true)
          expect(pet).toEqual(ModelPetRepository.toPet(pet.id, newPet))
          const found = yield* repository.findById(pet.id)
          expect(found).toEqual(Option.some(pet))
          // what is read back is the same `Pet`: its class, equal and hashed as the one inserted
          const listed = yield* repository.list({ afterId: pet.id > 1 ? PetId.make(pet.id - 1) : undefined, status: pet.status, limit: 1 })
          expect(listed).toHaveLength(1)
          for (const read of [Option.getOrThrow(found), ...listed]) {
            expect(read).toBeInstanceOf(Pet)
            expect(Equal.equals(read, pet) && Hash.hash(read) === Hash.hash(pet)).toBe(true)
          }
        }
      }).pipe(Effect.provide(layer)))

    it.effect("ids increase and are never reused", () =>
      Effect.gen(function*() {
        const repository = yield* PetRepository
        const pets = yield* Effect.forEach(samplePets(30), repository.insert)
        const ids = pets.map((pet) => pet.id)
        expect(isAscending(ids)).toBe(true)
        const more = yield* repository.insert(samplePet(99))
        expect(more.id).toBeGreaterThan(Math.max(...ids))
        expect((yield* repository.list({ limit: 100 })).map((pet) => pet.id)).toEqual([...ids, more.id])
      }).pipe(Effect.provide(layer)))

    it.effect("findById of an id never assigned is None", () =>
      Effect.gen(function*() {
        const repository = yield* PetRepository
        expect(yield* repository.findById(PetId.make(1))).toEqual(Option.none())
        const pets = yield* Effect.forEach(samplePets(3), repository.insert)
        const last = Math.max(...pets.map((pet) => pet.id))
        expect(yield* repository.findById(PetId.make(last + 1))).toEqual(Option.none())
        expect(yield* repository.findById(PetId.make(Arbitraries.maxId))).toEqual(Option.none())
      }).pipe(Effect.provide(layer)))

    it.effect("list returns at most limit animals in ascending id order", () =>
      Effect.gen(function*() {
        const repository = yield* PetRepository
        expect(yield* repository.list({ limit: 20 })).toEqual([])
        const pets = yield* Effect.forEach(samplePets(25), repository.insert)
        expect(yield* repository.list({ limit: 101 })).toEqual(pets)
        expect(yield* repository.list({ limit: 25 })).toEqual(pets)
        expect(yield* repository.list({ limit: 10 })).toEqual(pets.slice(0, 10))
        expect(yield* repository.list({ limit: 1 })).toEqual(pets.slice(0, 1))
      }).pipe(Effect.provide(layer)))

    it.effect("list with a status returns only animals with that status", () =>
      Effect.gen(function*() {
        const repository = yield* PetRepository
        const pets = yield* Effect.forEach(samplePets(30), repository.insert)
        for (const status of PetStatus.literals) {
          const expected = pets.filter((pet) => pet.status === status)
          expect(expected.length).toBeGreaterThan(0)
          expect(yield* repository.list({ status, limit: 100 })).toEqual(expected)
          expect(yield* repository.list({ status, limit: 3 })).toEqual(expected.slice(0, 3))
        }
      }).pipe(Effect.provide(layer)))

    it.effect("list after an id continues with the greater ids", () =>
      Effect.gen(function*() {
        const repository = yield* PetRepository
        const pets = yield* Effect.forEach(samplePets(30), repository.insert)
        const at = (i: number) => pets[i]!
        expect(yield* repository.list({ afterId: at(4).id, limit: 100 })).toEqual(pets.slice(5))
        expect(yield* repository.list({ afterId: at(4).id, limit: 3 })).toEqual(pets.slice(5, 8))
        expect(yield* repository.list({ afterId: at(29).id, limit: 100 })).toEqual([])
        expect(yield* repository.list({ afterId: PetId.make(Arbitraries.maxId), limit: 100 })).toEqual([])
        const sold = pets.filter((pet) => pet.status === "sold")
        expect(yield* repository.list({ status: "sold", afterId: at(4).id, limit: 2 })).toEqual(
          sold.filter((pet) => pet.id > at(4).id).slice(0, 2)
        )
        expect(yield* repository.list({ status: "sold", afterId: sold[0]!.id, limit: 100 })).toEqual(sold.slice(1))
      }).pipe(Effect.provide(layer)))

    it.effect("list with a status after any animal's id gives the greater ids of that status", () =>
      Effect.gen(function*() {
        const repository = yield* PetRepository
        const pets = yield* Effect.forEach(samplePets(12), repository.insert)
        for (const status of PetStatus.literals) {
          for (const after of pets) {
            expect(yield* repository.list({ status, afterId: after.id, limit: 100 })).toEqual(
              pets.filter((pet) => pet.status === status && pet.id > after.id)
            )
          }
        }
      }).pipe(Effect.provide(layer)))

    it.effect("concurrent inserts get distinct ids and are all stored", () =>
      Effect.gen(function*() {
        const repository = yield* PetRepository
        const pets = yield* Effect.forEach(samplePets(60), repository.insert, { concurrency: "unbounded" })
        const ids = pets.map((pet) => pet.id)
        expect(new Set(ids).size).toBe(ids.length)
        const stored = yield* repository.list({ limit: 100 })
        expect(stored.map((pet) => pet.id)).toEqual([...ids].sort((a, b) => a - b))
        for (const pet of pets) {
          expect(yield* repository.findById(pet.id)).toEqual(Option.some(pet))
        }
      }).pipe(Effect.provide(layer)))

    it.effect.prop(
      "behaves as the model over random inserts, lookups and listings",
      { commands: fc.commands(commandArbitraries, { maxCommands: 100, size: "medium" }) },
      ({ commands }) =>
        Effect.gen(function*() {
          const repository = yield* PetRepository
          const run = Runtime.runPromise(yield* Effect.runtime<never>())
          yield* Effect.promise(() =>
            fc.asyncModelRun(() => ({ model: { pets: [], lastId: 0 }, real: { repository, run } }), commands)
          )
        }).pipe(Effect.provide(layer)),
      { fastCheck: { numRuns: 40 } }
    )
  })
}

const isAscending = (ids: ReadonlyArray<number>): boolean => ids.every((id, i) => i === 0 || ids[i - 1]! < id)

const samplePet = (i: number): NewPet => ({
  name: `pet ${i}`,
  categoryId: CategoryId.make(1 + (i % 4)),
  status: PetStatus.literals[(i * 7 + Math.floor(i / 3)) % PetStatus.literals.length]!
})

const samplePets = (n: number): ReadonlyArray<NewPet> => Arr.makeBy(n, samplePet)

const edgeCases: ReadonlyArray<NewPet> = [
  { name: "a", categoryId: CategoryId.make(1), status: "available" },
  { name: "😀".repeat(255), categoryId: CategoryId.make(Arbitraries.maxId), status: "pending" },
  { name: "名前 with ünïcödé", categoryId: CategoryId.make(2 ** 32 + 1), status: "sold" },
  { name: "O'Brien \"quoted\" \\ back; DROP TABLE pets; --", categoryId: CategoryId.make(7), status: "sold" },
  { name: "tab\tnew\nline nul\u0000 %_*", categoryId: CategoryId.make(8), status: "available" }
]

interface Model {
  readonly pets: Array<Pet>
  lastId: number
}

interface Real {
  readonly repository: PetRepositoryService
  readonly run: <A, E>(effect: Effect.Effect<A, E>) => Promise<A>
}

/** An id of an animal already inserted (by position) or any id at all. */
type IdChoice = { readonly _tag: "Inserted"; readonly index: number } | { readonly _tag: "Any"; readonly id: number }

const idChoice: fc.Arbitrary<IdChoice> = fc.oneof(
  fc.nat().map((index) => ({ _tag: "Inserted", index }) as const),
  fc.oneof(fc.integer({ min: 1, max: 80 }), fc.constant(Arbitraries.maxId)).map((id) => ({ _tag: "Any", id }) as const)
)

const resolveId = (model: Model, choice: IdChoice): PetId => {
  const inserted = model.pets.length === 0 || choice._tag === "Any"
    ? undefined
    : model.pets[choice.index % model.pets.length]
  return PetId.make(inserted?.id ?? (choice._tag === "Any" ? choice.id : 1))
}

const showChoice = (choice: IdChoice): string =>
  choice._tag === "Any" ? String(choice.id) : `inserted[${choice.index}]`

class Insert implements fc.AsyncCommand<Model, Real> {
  constructor(readonly newPet: NewPet) {}
  check() {
    return true
  }
  async run(model: Model, real: Real) {
    const pet = await real.run(real.repository.insert(this.newPet))
    expect(pet.id).toBeGreaterThan(model.lastId)
    expect(pet).toEqual(ModelPetRepository.toPet(pet.id, this.newPet))
    model.pets.push(pet)
    model.lastId = pet.id
  }
  toString() {
    return `insert(${JSON.stringify(this.newPet)})`
  }
}

class FindById implements fc.AsyncCommand<Model, Real> {
  constructor(readonly id: IdChoice) {}
  check() {
    return true
  }
  async run(model: Model, real: Real) {
    const id = resolveId(model, this.id)
    expect(await real.run(real.repository.findById(id))).toEqual(ModelPetRepository.findById(model.pets, id))
  }
  toString() {
    return `findById(${showChoice(this.id)})`
  }
}

class List implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly status: PetStatus | undefined,
    readonly after: IdChoice | undefined,
    readonly limit: number
  ) {}
  check() {
    return true
  }
  async run(model: Model, real: Real) {
    const filter: ListPetsFilter = {
      status: this.status,
      afterId: this.after === undefined ? undefined : resolveId(model, this.after),
      limit: this.limit
    }
    expect(await real.run(real.repository.list(filter))).toEqual(ModelPetRepository.list(model.pets, filter))
  }
  toString() {
    return `list(${this.status ?? "any"}, after ${this.after === undefined ? "start" : showChoice(this.after)}, ${this.limit})`
  }
}

const insert = Arbitraries.newPet.map((newPet) => new Insert(newPet))

/** Inserts come twice as often as lookups and listings, so that listings see long stores. */
const commandArbitraries: Array<fc.Arbitrary<fc.AsyncCommand<Model, Real>>> = [
  insert,
  insert,
  idChoice.map((id) => new FindById(id)),
  fc.tuple(
    fc.option(Arbitraries.status, { nil: undefined }),
    fc.option(idChoice, { nil: undefined }),
    fc.oneof(fc.integer({ min: 1, max: 8 }), fc.integer({ min: 1, max: 101 }))
  ).map(([status, after, limit]) => new List(status, after, limit))
]
