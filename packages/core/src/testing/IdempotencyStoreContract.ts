/**
 * The contract every `IdempotencyStore` keeps (with its store's `PetRepository`),
 * as a test suite a store package runs against its own layer.
 *
 * @since 1.0.0
 */
import { describe, expect, it } from "@effect/vitest"
import type { Layer } from "effect"
import { Clock, Effect, Runtime, TestClock } from "effect"
import * as fc from "effect/FastCheck"
import * as Idempotency from "../Idempotency.js"
import type {
  IdempotencyDecision,
  IdempotencyRecord,
  IdempotencyStoreService,
  IdempotentCreateOutcome
} from "../IdempotencyStore.js"
import { IdempotencyStore } from "../IdempotencyStore.js"
import type { NewPet, Pet } from "../Pet.js"
import { CategoryId, PetId } from "../Pet.js"
import type { PetRepositoryService } from "../PetRepository.js"
import { PetRepository } from "../PetRepository.js"
import * as ModelPetRepository from "./internal/ModelPetRepository.js"

const day = Idempotency.retentionMillis
const hour = 60 * 60 * 1000

const rex: NewPet = { name: "Rex", categoryId: CategoryId.make(1), status: "available" }
const tom: NewPet = { name: "Tom", categoryId: CategoryId.make(2), status: "sold" }
const odd: NewPet = {
  name: "😀".repeat(200) + " O'Brien \"quoted\" \\ nul\u0000 %_*",
  categoryId: CategoryId.make(Number.MAX_SAFE_INTEGER),
  status: "pending"
}
const bodies: ReadonlyArray<NewPet> = [rex, tom, odd]

/** Every visible ASCII character, and the longest key. */
const edgeKeys: ReadonlyArray<string> = [
  "a",
  Array.from({ length: 0x7e - 0x21 + 1 }, (_, i) => String.fromCharCode(0x21 + i)).join(""),
  "k".repeat(Idempotency.maxKeyLength),
  "'; DROP TABLE idempotency_keys; --"
]
const scopes: ReadonlyArray<string> = ["key_aaaaaaaaaaaaaaaa", "key_bbbbbbbbbbbbbbbb", "", "école 🐾"]

interface Ports {
  readonly store: IdempotencyStoreService
  readonly pets: PetRepositoryService
}

const ports = Effect.all({ store: IdempotencyStore, pets: PetRepository })

/** A keyed create through the real rule at the `Clock`'s instant. */
const create = (store: IdempotencyStoreService, scope: string, key: string, pet: NewPet) =>
  Effect.flatMap(Clock.currentTimeMillis, (now) =>
    store.createPet({ scope, key, pet, now, decide: Idempotency.decide(Idempotency.fingerprint(pet), now) }))

/** The record of `(scope, key)` as `decide` receives it, through a decision that writes nothing. */
const peek = (store: IdempotencyStoreService, scope: string, key: string) =>
  Effect.flatMap(Clock.currentTimeMillis, (now) => {
    let seen: IdempotencyRecord | undefined
    return Effect.as(
      store.createPet({
        scope,
        key,
        pet: rex,
        now,
        decide: (record) => {
          seen = record
          return { _tag: "Reused" }
        }
      }),
      undefined
    ).pipe(Effect.map(() => seen))
  })

const allPets = (pets: PetRepositoryService) => pets.list({ limit: 101 })

const createdPet = (outcome: IdempotentCreateOutcome): Pet => {
  if (outcome._tag !== "Created") throw new Error(`expected Created, got ${outcome._tag}`)
  return outcome.pet
}

/**
 * Declares a `describe` block that checks an `IdempotencyStore` layer (with its
 * store's `PetRepository`) against the contract (record 0012); each build of
 * `layer` must give an empty store.
 *
 * @since 1.0.0
 * @category contracts
 */
export const testIdempotencyStore = (
  name: string,
  layer: Layer.Layer<IdempotencyStore | PetRepository, unknown>
): void => {
  describe(`IdempotencyStore contract (${name})`, () => {
    it.effect("Create stores the animal and its record; the same body replays it exactly, once", () =>
      Effect.gen(function*() {
        const { pets, store } = yield* ports
        yield* TestClock.setTime(1_700_000_000_000)
        const expected: Array<Pet> = []
        for (const [i, key] of edgeKeys.entries()) {
          const scope = scopes[i % scopes.length]!
          const body = bodies[i % bodies.length]!
          const pet = createdPet(yield* create(store, scope, key, body))
          expect(pet).toEqual(ModelPetRepository.toPet(pet.id, body))
          expected.push(pet)
          expect(yield* create(store, scope, key, body)).toEqual({ _tag: "Replayed", pet })
          const record = yield* peek(store, scope, key)
          expect(record).toEqual({
            _tag: "Completed",
            fingerprint: Idempotency.fingerprint(body),
            expiresAt: 1_700_000_000_000 + day,
            pet
          })
        }
        expect(yield* allPets(pets)).toEqual(expected)
      }).pipe(Effect.provide(layer)))

    it.effect("decisions other than Create write nothing", () =>
      Effect.gen(function*() {
        const { pets, store } = yield* ports
        const first = createdPet(yield* create(store, scopes[0]!, "k", rex))
        expect(yield* create(store, scopes[0]!, "k", tom)).toEqual({ _tag: "Reused" })
        const decisions: ReadonlyArray<IdempotencyDecision> = [
          { _tag: "Reused" },
          { _tag: "InUse" },
          { _tag: "Replayed", pet: first }
        ]
        for (const decision of decisions) {
          for (const key of ["k", "never-used"]) {
            const outcome = yield* store.createPet({ scope: scopes[0]!, key, pet: tom, now: 0, decide: () => decision })
            expect(outcome).toEqual(decision)
          }
        }
        expect(yield* peek(store, scopes[0]!, "never-used")).toBeUndefined()
        expect(yield* create(store, scopes[0]!, "k", rex)).toEqual({ _tag: "Replayed", pet: first })
        expect(yield* allPets(pets)).toEqual([first])
      }).pipe(Effect.provide(layer)))

    it.effect("keys and scopes are independent", () =>
      Effect.gen(function*() {
        const { pets, store } = yield* ports
        const created: Array<Pet> = []
        for (const scope of scopes) {
          for (const key of ["same", "Same"]) created.push(createdPet(yield* create(store, scope, key, rex)))
        }
        expect(new Set(created.map((pet) => pet.id)).size).toBe(scopes.length * 2)
        let i = 0
        for (const scope of scopes) {
          for (const key of ["same", "Same"]) {
            expect(yield* create(store, scope, key, rex)).toEqual({ _tag: "Replayed", pet: created[i++] })
          }
        }
        expect((yield* allPets(pets)).length).toBe(created.length)
      }).pipe(Effect.provide(layer)))

    it.effect("a record counts for 24 hours: replayed until just before, created anew at the instant", () =>
      Effect.gen(function*() {
        const { pets, store } = yield* ports
        yield* TestClock.setTime(5 * hour)
        const first = createdPet(yield* create(store, "s", "k", rex))
        yield* TestClock.adjust(day - 1)
        expect(yield* create(store, "s", "k", rex)).toEqual({ _tag: "Replayed", pet: first })
        expect(yield* create(store, "s", "k", tom)).toEqual({ _tag: "Reused" })
        yield* TestClock.adjust(1)
        const expired = yield* peek(store, "s", "k")
        expect(expired === undefined || expired.expiresAt === 5 * hour + day).toBe(true)
        const second = createdPet(yield* create(store, "s", "k", tom))
        expect(second.id).toBeGreaterThan(first.id)
        expect(yield* create(store, "s", "k", tom)).toEqual({ _tag: "Replayed", pet: second })
        expect(yield* create(store, "s", "k", rex)).toEqual({ _tag: "Reused" })
        expect((yield* peek(store, "s", "k"))?.expiresAt).toBe(5 * hour + 2 * day)
        expect(yield* allPets(pets)).toEqual([first, second])
      }).pipe(Effect.provide(layer)))

    it.effect("purge deletes only expired records, earliest expiry first, at most its limit", () =>
      Effect.gen(function*() {
        const { store } = yield* ports
        for (let i = 0; i < 4; i++) {
          yield* TestClock.setTime(i * hour)
          yield* create(store, "s", `k${i}`, rex)
        }
        // k0, k1 and k2 have expired (k2 at this very instant), k3 has not.
        const now = 2 * hour + day
        expect(yield* store.purge(now, 0)).toBe(0)
        expect(yield* store.purge(now, 1)).toBe(1)
        yield* TestClock.setTime(now)
        expect(yield* peek(store, "s", "k0")).toBeUndefined()
        expect((yield* peek(store, "s", "k1"))?.expiresAt).toBe(hour + day)
        expect(yield* store.purge(now, 10)).toBe(2)
        expect(yield* store.purge(now, 10)).toBe(0)
        expect(yield* peek(store, "s", "k1")).toBeUndefined()
        expect(yield* peek(store, "s", "k2")).toBeUndefined()
        expect((yield* create(store, "s", "k3", rex))._tag).toBe("Replayed")
      }).pipe(Effect.provide(layer)))

    it.effect("a call that creates purges some expired records", () =>
      Effect.gen(function*() {
        const { store } = yield* ports
        for (let i = 0; i < 20; i++) yield* create(store, "s", `old${i}`, rex)
        yield* TestClock.adjust(day)
        yield* create(store, "s", "new", rex)
        expect(yield* store.purge(day, 100)).toBeLessThan(20)
        expect((yield* create(store, "s", "new", rex))._tag).toBe("Replayed")
      }).pipe(Effect.provide(layer)))

    it.effect.prop(
      "N concurrent calls with one key create one animal; the others replay it, are refused, or find it in use",
      {
        bodies: fc.array(fc.constantFrom(0, 1), { minLength: 2, maxLength: 50 })
      },
      ({ bodies: chosen }) =>
        Effect.gen(function*() {
          const { pets, store } = yield* ports
          const outcomes = yield* Effect.all(
            chosen.map((i) => Effect.map(create(store, "s", "burst", bodies[i]!), (outcome) => [i, outcome] as const)),
            { concurrency: "unbounded" }
          )
          const created = outcomes.filter(([, outcome]) => outcome._tag === "Created")
          expect(created.length).toBe(1)
          const [winner, createdOutcome] = created[0]!
          const pet = createdPet(createdOutcome)
          for (const [i, outcome] of outcomes) {
            if (outcome === createdOutcome || outcome._tag === "InUse") continue
            expect(outcome).toEqual(i === winner ? { _tag: "Replayed", pet } : { _tag: "Reused" })
          }
          expect(yield* allPets(pets)).toEqual([pet])
          expect(yield* create(store, "s", "burst", bodies[winner]!)).toEqual({ _tag: "Replayed", pet })
        }).pipe(Effect.provide(layer)),
      { fastCheck: { numRuns: 20 } }
    )

    it.effect.prop(
      "behaves as the model over random creates, concurrent duplicates, clock moves, purges and listings",
      { commands: fc.commands(commandArbitraries, { maxCommands: 40, size: "medium" }) },
      ({ commands }) =>
        Effect.gen(function*() {
          const real = yield* ports
          const run = Runtime.runPromise(yield* Effect.runtime<never>())
          yield* Effect.promise(() =>
            fc.asyncModelRun(
              () => ({ model: { records: new Map(), pets: [], now: 0 }, real: { ...real, run } }),
              commands
            )
          )
        }).pipe(Effect.provide(layer)),
      { fastCheck: { numRuns: 30 } }
    )
  })
}

interface ModelRecord {
  readonly fingerprint: string
  readonly expiresAt: number
  readonly pet: Pet
}

interface Model {
  /** By `scope + "\u0000" + key`. */
  readonly records: Map<string, ModelRecord>
  readonly pets: Array<Pet>
  now: number
}

interface Real extends Ports {
  readonly run: <A, E>(effect: Effect.Effect<A, E>) => Promise<A>
}

const recordId = (scope: string, key: string) => `${scope}\u0000${key}`

/** What the rule decides on the model's record: an expired one (purged or not) is the same as none. */
const expectedDecision = (model: Model, scope: string, key: string, pet: NewPet): IdempotencyDecision => {
  const record = model.records.get(recordId(scope, key))
  return Idempotency.decide(Idempotency.fingerprint(pet), model.now)(
    record === undefined ? undefined : { _tag: "Completed", ...record }
  )
}

const applyCreated = (model: Model, scope: string, key: string, body: NewPet, pet: Pet) => {
  const last = model.pets[model.pets.length - 1]
  if (last !== undefined) expect(pet.id).toBeGreaterThan(last.id)
  expect(pet).toEqual(ModelPetRepository.toPet(PetId.make(pet.id), body))
  model.pets.push(pet)
  model.records.set(recordId(scope, key), {
    fingerprint: Idempotency.fingerprint(body),
    expiresAt: model.now + day,
    pet
  })
}

class Create implements fc.AsyncCommand<Model, Real> {
  constructor(readonly scope: string, readonly key: string, readonly body: number) {}
  check() {
    return true
  }
  async run(model: Model, real: Real) {
    const body = bodies[this.body]!
    const expected = expectedDecision(model, this.scope, this.key, body)
    const outcome = await real.run(create(real.store, this.scope, this.key, body))
    if (expected._tag === "Create") applyCreated(model, this.scope, this.key, body, createdPet(outcome))
    else expect(outcome).toEqual(expected)
  }
  toString() {
    return `create(${JSON.stringify(this.scope)}, ${this.key}, body ${this.body})`
  }
}

class Burst implements fc.AsyncCommand<Model, Real> {
  constructor(readonly scope: string, readonly key: string, readonly body: number, readonly n: number) {}
  check() {
    return true
  }
  async run(model: Model, real: Real) {
    const body = bodies[this.body]!
    const expected = expectedDecision(model, this.scope, this.key, body)
    const outcomes = await real.run(
      Effect.all(Array.from({ length: this.n }, () => create(real.store, this.scope, this.key, body)), {
        concurrency: "unbounded"
      })
    )
    if (expected._tag === "Create") {
      const created = outcomes.filter((outcome) => outcome._tag === "Created")
      expect(created.length).toBe(1)
      const pet = createdPet(created[0]!)
      for (const outcome of outcomes) {
        if (outcome._tag !== "Created" && outcome._tag !== "InUse") expect(outcome).toEqual({ _tag: "Replayed", pet })
      }
      applyCreated(model, this.scope, this.key, body, pet)
    } else {
      for (const outcome of outcomes) expect(outcome).toEqual(expected)
    }
  }
  toString() {
    return `burst(${JSON.stringify(this.scope)}, ${this.key}, body ${this.body}, ×${this.n})`
  }
}

class Advance implements fc.AsyncCommand<Model, Real> {
  constructor(readonly millis: number) {}
  check() {
    return true
  }
  async run(model: Model, real: Real) {
    await real.run(TestClock.adjust(this.millis))
    model.now += this.millis
  }
  toString() {
    return `advance(${this.millis} ms)`
  }
}

class Purge implements fc.AsyncCommand<Model, Real> {
  constructor(readonly limit: number) {}
  check() {
    return true
  }
  async run(model: Model, real: Real) {
    const expired = [...model.records.entries()].filter(([, record]) => record.expiresAt <= model.now)
    const purged = await real.run(real.store.purge(model.now, this.limit))
    // Creating calls may already have purged some of them; fewer than the limit means none is left.
    expect(purged).toBeLessThanOrEqual(Math.min(this.limit, expired.length))
    if (purged < this.limit) {
      for (const [id] of expired) model.records.delete(id)
    }
  }
  toString() {
    return `purge(${this.limit})`
  }
}

class List implements fc.AsyncCommand<Model, Real> {
  check() {
    return true
  }
  async run(model: Model, real: Real) {
    expect(await real.run(allPets(real.pets))).toEqual(model.pets.slice(0, 101))
  }
  toString() {
    return "list"
  }
}

const scope = fc.constantFrom("key_a", "key_b")
const key = fc.constantFrom("k1", "k2", "K1")
const body = fc.constantFrom(0, 1, 2)

const commandArbitraries: Array<fc.Arbitrary<fc.AsyncCommand<Model, Real>>> = [
  fc.tuple(scope, key, body).map(([s, k, b]) => new Create(s, k, b)),
  fc.tuple(scope, key, body).map(([s, k, b]) => new Create(s, k, b)),
  fc.tuple(scope, key, body, fc.integer({ min: 2, max: 12 })).map(([s, k, b, n]) => new Burst(s, k, b, n)),
  fc.constantFrom(1, hour, day - 1, day, day + hour).map((millis) => new Advance(millis)),
  fc.integer({ min: 1, max: 4 }).map((limit) => new Purge(limit)),
  fc.constant(new List())
]
