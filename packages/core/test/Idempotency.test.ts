import { createHash } from "node:crypto"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Layer, Redacted, TestClock } from "effect"
import * as fc from "effect/FastCheck"
import * as AccessConfig from "../src/AccessConfig.js"
import * as AnimalStore from "../src/AnimalStore.js"
import { IdempotencyKeyReused, InvalidRequest } from "../src/ApiError.js"
import * as ApiKeyAuth from "../src/ApiKeyAuth.js"
import * as GuardedPetOperations from "../src/GuardedPetOperations.js"
import * as Idempotency from "../src/Idempotency.js"
import type { IdempotencyRecord } from "../src/IdempotencyStore.js"
import * as ListPetsQuery from "../src/ListPetsQuery.js"
import type { NewPet } from "../src/Pet.js"
import { CategoryId, Pet, PetId } from "../src/Pet.js"
import * as PetOperations from "../src/PetOperations.js"
import * as ModelPetRepository from "../src/testing/internal/ModelPetRepository.js"
import * as ModelApiKeyStore from "./internal/ModelApiKeyStore.js"
import * as ModelIdempotencyStore from "./internal/ModelIdempotencyStore.js"
import { ClientOperations } from "./internal/operations.js"
import * as ModelRateLimitStore from "./internal/ModelRateLimitStore.js"

const visible = fc.integer({ min: 0x21, max: 0x7e }).map((code) => String.fromCharCode(code))
const validKey = fc.array(visible, { minLength: 1, maxLength: 255 }).map((chars) => chars.join(""))

/** A JSON value with its object members in another order. */
const reordered = (value: unknown): unknown =>
  Array.isArray(value)
    ? value.map(reordered)
    : value !== null && typeof value === "object"
    ? Object.fromEntries(Object.entries(value).reverse().map(([name, member]) => [name, reordered(member)]))
    : value

describe("Idempotency (the rule)", () => {
  it.prop("a key is 1 to 255 visible ASCII characters", { key: validKey }, ({ key }) => {
    expect(Idempotency.isKey(key)).toBe(true)
  })

  it.prop(
    "a key with any other character, or of another length, is malformed",
    {
      key: fc.tuple(validKey, fc.oneof(fc.constantFrom(" ", "\t", "\u0000", "\u007f", "é", "🐾"), fc.string({ unit: "binary", minLength: 1, maxLength: 1 }).filter((c) => !/^[\x21-\x7e]$/.test(c))), fc.nat())
        .map(([key, bad, at]) => key.slice(0, at % (key.length + 1)) + bad + key.slice(at % (key.length + 1)))
    },
    ({ key }) => {
      expect(Idempotency.isKey(key)).toBe(false)
    }
  )

  it("the empty key and a key of 256 characters are malformed", () => {
    expect(Idempotency.isKey("")).toBe(false)
    expect(Idempotency.isKey("k".repeat(255))).toBe(true)
    expect(Idempotency.isKey("k".repeat(256))).toBe(false)
  })

  it.prop("the same JSON value, members in any order, has the same fingerprint", { value: fc.jsonValue() }, ({ value }) => {
    const text = JSON.stringify(reordered(value), null, 2)
    expect(Idempotency.fingerprint(JSON.parse(text))).toBe(Idempotency.fingerprint(value))
    expect(Idempotency.canonicalJson(JSON.parse(Idempotency.canonicalJson(value)))).toBe(Idempotency.canonicalJson(value))
  })

  it.prop(
    "different JSON values have different fingerprints",
    { a: fc.jsonValue(), b: fc.jsonValue() },
    ({ a, b }) => {
      fc.pre(Idempotency.canonicalJson(a) !== Idempotency.canonicalJson(b))
      expect(Idempotency.fingerprint(a)).not.toBe(Idempotency.fingerprint(b))
    }
  )

  it("fingerprints the body as sent: trimming, defaults and number spelling", () => {
    const f = (text: string) => Idempotency.fingerprint(JSON.parse(text))
    expect(f(`{"name":"Rex","categoryId":1}`)).toBe(f(`{ "categoryId": 1.0, "name": "Rex" }`))
    expect(f(`{"name":"Rex","categoryId":1}`)).toBe(f(`{"name":"R\\u0065x","categoryId":1e0}`))
    expect(f(`{"name":"Rex","categoryId":1}`)).not.toBe(f(`{"name":" Rex","categoryId":1}`))
    expect(f(`{"name":"Rex","categoryId":1}`)).not.toBe(f(`{"name":"Rex","categoryId":1,"status":"available"}`))
  })

  describe("decide", () => {
    const pet = new Pet({ id: PetId.make(3), name: "Rex", categoryId: CategoryId.make(1), status: "available" })
    const now = 1_000_000
    const completed = (fingerprint: string, expiresAt: number): IdempotencyRecord => ({
      _tag: "Completed",
      fingerprint,
      expiresAt,
      pet
    })
    const decide = Idempotency.decide("f", now)

    it("no record, or an expired one: create, remembered for 24 hours from now", () => {
      const create = { _tag: "Create", fingerprint: "f", expiresAt: now + 86_400_000 }
      expect(decide(undefined)).toEqual(create)
      expect(decide(completed("f", now))).toEqual(create)
      expect(decide(completed("g", now - 1))).toEqual(create)
      expect(decide({ _tag: "InProgress", fingerprint: "g", expiresAt: now })).toEqual(create)
    })

    it("a live record: in progress is InUse whatever the body, another body Reused, the same body Replayed", () => {
      expect(decide({ _tag: "InProgress", fingerprint: "f", expiresAt: now + 1 })).toEqual({ _tag: "InUse" })
      expect(decide({ _tag: "InProgress", fingerprint: "g", expiresAt: now + 1 })).toEqual({ _tag: "InUse" })
      expect(decide(completed("g", now + 1))).toEqual({ _tag: "Reused" })
      expect(decide(completed("f", now + 1))).toEqual({ _tag: "Replayed", pet })
    })
  })
})

const storesLayer = ModelIdempotencyStore.layer.pipe(Layer.provideMerge(ModelPetRepository.layer()))

const fullLayer = AnimalStore.layer.pipe(
  Layer.provideMerge(Layer.mergeAll(storesLayer, ModelApiKeyStore.layer, ModelRateLimitStore.layer, AccessConfig.layer()))
)

describe("PetOperations.createPet with an idempotency key", () => {
  it.effect("replays within the scope, refuses another body, and keeps scopes apart", () =>
    Effect.gen(function*() {
      const operations = yield* ClientOperations
      const first = yield* operations.createPetOutcome({ name: "Rex", categoryId: 1 }, { idempotencyKey: "k" })
      expect(first.replayed).toBe(false)
      const again = yield* operations.createPetOutcome({ categoryId: 1, name: "Rex" }, { idempotencyKey: "k" })
      expect(again).toEqual({ pet: first.pet, replayed: true })
      expect(yield* operations.createPet({ name: "Rex", categoryId: 1 }, { idempotencyKey: "k" })).toEqual(first.pet)
      // Without a scope, the host's own: the scope "".
      expect(yield* operations.createPet({ name: "Rex", categoryId: 1 }, { idempotencyKey: "k", idempotencyScope: "" }))
        .toEqual(first.pet)
      const reused = yield* Effect.flip(operations.createPet({ name: "Tom", categoryId: 1 }, { idempotencyKey: "k" }))
      expect(reused).toBeInstanceOf(IdempotencyKeyReused)
      expect((reused as IdempotencyKeyReused).code).toBe("idempotency_key_reused")
      const other = yield* operations.createPet({ name: "Tom", categoryId: 1 }, { idempotencyKey: "k", idempotencyScope: "x" })
      expect(other.id).toBe(first.pet.id + 1)
      const page = yield* operations.listPets({})
      expect(page.pets.length).toBe(2)
    }).pipe(Effect.provide(PetOperations.layer.pipe(Layer.provideMerge(storesLayer)))))

  it.effect("a malformed key, then an invalid body, are InvalidRequest before the store: no record is left", () =>
    Effect.gen(function*() {
      const operations = yield* ClientOperations
      const badKey = yield* Effect.flip(operations.createPet({ name: "Rex", categoryId: 1 }, { idempotencyKey: "a b" }))
      expect(badKey).toBeInstanceOf(InvalidRequest)
      expect((badKey as InvalidRequest).details).toEqual([{ path: "Idempotency-Key", message: "must be 1 to 255 visible ASCII characters" }])
      expect((badKey as InvalidRequest).message).toBe("Invalid request: Idempotency-Key must be 1 to 255 visible ASCII characters")
      const badBody = yield* Effect.flip(operations.createPet({ name: "", categoryId: 1 }, { idempotencyKey: "k" }))
      expect(badBody).toBeInstanceOf(InvalidRequest)
      const created = yield* operations.createPetOutcome({ name: "Tom", categoryId: 1 }, { idempotencyKey: "k" })
      expect(created.replayed).toBe(false)
    }).pipe(Effect.provide(PetOperations.layer.pipe(Layer.provideMerge(storesLayer)))))

  it.effect("a typed createPet fingerprints the body as sent when given, else the NewPet itself", () =>
    Effect.gen(function*() {
      const operations = yield* PetOperations.PetOperations
      const pet: NewPet = { name: "Rex", categoryId: CategoryId.make(1), status: "available" }
      const first = yield* operations.createPet(pet, { idempotencyKey: "typed" })
      expect(first.replayed).toBe(false)
      const again = yield* operations.createPet(pet, { idempotencyKey: "typed" })
      expect(again).toEqual({ pet: first.pet, replayed: true })
      // The same NewPet decoded from a body without `status`: another JSON value.
      const reused = yield* Effect.flip(
        operations.createPet(pet, { idempotencyKey: "typed", body: { name: "Rex", categoryId: 1 } })
      )
      expect(reused._tag).toBe("IdempotencyKeyReused")
      // The NewPet's own JSON value, members in another order: the same request.
      const replayed = yield* operations.createPet(pet, {
        idempotencyKey: "typed",
        body: { status: "available", categoryId: 1, name: "Rex" }
      })
      expect(replayed).toEqual({ pet: first.pet, replayed: true })
    }).pipe(Effect.provide(PetOperations.layer.pipe(Layer.provideMerge(storesLayer)))))

  it.effect("expires 24 hours after the first request (TestClock)", () =>
    Effect.gen(function*() {
      const operations = yield* ClientOperations
      const first = yield* operations.createPet({ name: "Rex", categoryId: 1 }, { idempotencyKey: "k" })
      yield* TestClock.adjust("23 hours")
      expect(yield* operations.createPet({ name: "Rex", categoryId: 1 }, { idempotencyKey: "k" })).toEqual(first)
      yield* TestClock.adjust("1 hour")
      expect((yield* operations.createPet({ name: "Rex", categoryId: 1 }, { idempotencyKey: "k" })).id).toBe(first.id + 1)
    }).pipe(Effect.provide(PetOperations.layer.pipe(Layer.provideMerge(storesLayer)))))

  it.effect("without an IdempotencyStore, a keyed call is a defect and an unkeyed one works", () =>
    Effect.gen(function*() {
      const operations = yield* ClientOperations
      expect((yield* operations.createPet({ name: "Rex", categoryId: 1 })).id).toBe(1)
      const exit = yield* Effect.exit(operations.createPet({ name: "Rex", categoryId: 1 }, { idempotencyKey: "k" }))
      expect(Exit.isFailure(exit) && exit.cause._tag === "Die").toBe(true)
    }).pipe(Effect.provide(PetOperations.layer.pipe(Layer.provide(ModelPetRepository.layer())))))

  it.effect("guarded: keys are scoped to the API key, and a replay is marked in meta", () =>
    Effect.gen(function*() {
      const auth = yield* ApiKeyAuth.ApiKeyAuth
      const guarded = yield* GuardedPetOperations.GuardedPetOperations
      const alice = Redacted.value((yield* auth.issue({ plan: "pro" })).secret)
      const bob = Redacted.value((yield* auth.issue({ plan: "pro" })).secret)
      const request = (credential: string) => ({ credential, clientAddress: "192.0.2.1" })
      const first = yield* guarded.createPet(request(alice), { name: "Rex", categoryId: 1 }, { idempotencyKey: "k" })
      expect(first.meta.idempotentReplayed).toBeUndefined()
      const replay = yield* guarded.createPet(request(alice), { name: "Rex", categoryId: 1 }, { idempotencyKey: "k" })
      expect(replay.value).toEqual(first.value)
      expect(replay.meta.idempotentReplayed).toBe(true)
      expect(replay.meta.rateLimit?.reported.remaining).toBe(first.meta.rateLimit!.reported.remaining - 1)
      const other = yield* guarded.createPet(request(bob), { name: "Tom", categoryId: 1 }, { idempotencyKey: "k" })
      expect(other.value.id).toBe(first.value.id + 1)
      const reused = yield* Effect.flip(guarded.createPet(request(alice), { name: "Tom", categoryId: 1 }, { idempotencyKey: "k" }))
      expect(reused.error._tag).toBe("IdempotencyKeyReused")
      expect(reused.meta.rateLimit?.outcome).toBe("Accepted")
    }).pipe(Effect.provide(fullLayer)))

  it("the Promise facade takes the key too", async () => {
    const store = await AnimalStore.open({
      store: Layer.mergeAll(
        storesLayer,
        ModelApiKeyStore.layer,
        ModelRateLimitStore.layer,
        ListPetsQuery.layerRandomCursorSecret
      )
    })
    try {
      const first = await store.createPet({ name: "Rex", categoryId: 1 }, { idempotencyKey: "k" })
      expect(await store.createPet({ name: "Rex", categoryId: 1 }, { idempotencyKey: "k" })).toEqual(first)
      await expect(store.createPet({ name: "Tom", categoryId: 1 }, { idempotencyKey: "k" })).rejects.toMatchObject({
        code: "idempotency_key_reused",
        status: 422
      })
      const { secret } = await store.keys.issue({ plan: "pro" })
      const client = { credential: secret, clientAddress: "192.0.2.1" }
      await store.guarded.createPet(client, { name: "Rex", categoryId: 1 }, { idempotencyKey: "k" })
      const replay = await store.guarded.createPet(client, { name: "Rex", categoryId: 1 }, { idempotencyKey: "k" })
      expect(replay.meta.idempotentReplayed).toBe(true)
      expect((await store.listPets()).pets.length).toBe(2)
    } finally {
      await store.close()
    }
  })
})

describe("Idempotency.canonicalJson, on arrays and absent members", () => {
  it("keeps array order, writes an absent element as null, and leaves out members whose value is undefined", () => {
    expect(Idempotency.canonicalJson([3, undefined, { b: 1, a: [2, 1] }])).toBe("[3,null,{\"a\":[2,1],\"b\":1}]")
    expect(Idempotency.canonicalJson({ z: undefined, y: null, x: "1" })).toBe("{\"x\":\"1\",\"y\":null}")
    expect(Idempotency.canonicalJson([])).toBe("[]")
    expect(Idempotency.fingerprint([1, 2])).not.toBe(Idempotency.fingerprint([2, 1]))
    expect(Idempotency.fingerprint({ a: undefined })).toBe(Idempotency.fingerprint({}))
    // An in-process host may pass no body at all: it is fingerprinted as JSON's null.
    expect(Idempotency.canonicalJson(undefined)).toBe("null")
  })

  // The text as first defined (and stored in every record since): JSON.stringify
  // of each scalar, members sorted with Array.prototype.sort.
  const referenceText = (value: unknown): string => {
    if (Array.isArray(value)) return `[${value.map((element) => referenceText(element ?? null)).join(",")}]`
    if (value !== null && typeof value === "object") {
      const record = value as Record<string, unknown>
      return `{${
        Object.keys(record).sort().filter((name) => record[name] !== undefined)
          .map((name) => `${JSON.stringify(name)}:${referenceText(record[name])}`).join(",")
      }}`
    }
    return JSON.stringify(value) ?? "null"
  }
  const anyCodeUnits = fc.array(fc.integer({ min: 0, max: 0xffff }), { maxLength: 12 })
    .map((codes) => String.fromCharCode(...codes))
  const scalar = fc.oneof(anyCodeUnits, fc.double(), fc.integer(), fc.boolean(), fc.constant(null))

  it.prop(
    "the canonical text is JSON.stringify's, members sorted by code units, whatever the strings and numbers",
    {
      value: fc.oneof(
        fc.jsonValue(),
        scalar,
        fc.dictionary(anyCodeUnits, fc.oneof(scalar, fc.array(scalar, { maxLength: 4 })), { maxKeys: 20 })
      )
    },
    ({ value }) => {
      expect(Idempotency.canonicalJson(value)).toBe(referenceText(value))
    }
  )

  it.prop("a fingerprint is the SHA-256 of the canonical text, in base64url", { value: fc.jsonValue() }, ({ value }) => {
    expect(Idempotency.fingerprint(value)).toBe(
      createHash("sha256").update(Idempotency.canonicalJson(value), "utf8").digest("base64url")
    )
  })
})
