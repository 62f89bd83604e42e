import { describe, expect, it } from "@effect/vitest"
import { Effect, Either, Option } from "effect"
import * as fc from "effect/FastCheck"
import { PetNotFound } from "../src/ApiError.js"
import { CategoryId, maxNameLength, Pet, PetId } from "../src/Pet.js"
import * as Arbitraries from "../src/testing/internal/arbitraries.js"
import { ClientOperations, expectInvalid, runWithPets, withPets } from "./internal/operations.js"

const createPet = (body: unknown) => Effect.flatMap(ClientOperations, (operations) => operations.createPet(body))
const getPet = (id: unknown) => Effect.flatMap(ClientOperations, (operations) => operations.getPet(id))

const whiteSpace = fc.constantFrom(" ", "\t", "\n", "\r", "\v", "\f", "\u00a0", "\u2003", "\u2028", "\u3000", "\ufeff")

/** One Unicode code point that is not white space, astral ones often. */
const codePoint = fc.oneof(
  fc.string({ unit: "binary", minLength: 1, maxLength: 1 }),
  fc.integer({ min: 0x1f300, max: 0x1faff }).map((n) => String.fromCodePoint(n))
).filter((c) => c.trim() === c)

/** The code points of a trimmed name: white space only between other code points. */
const trimmedName = (minLength: number, maxLength: number) =>
  fc.array(fc.oneof({ weight: 8, arbitrary: codePoint }, { weight: 1, arbitrary: whiteSpace }), {
    minLength,
    maxLength,
    size: "max"
  }).filter((codePoints) => codePoints.join("").trim() === codePoints.join(""))

/** White space that trimming removes. */
const padding = fc.string({ unit: whiteSpace, maxLength: 4 })

const categoryId = fc.integer({ min: 1, max: Arbitraries.maxId })

/** Values that are not integers from 1 to 2^53-1 (numbers beyond it are never rounded into range). */
const invalidId: fc.Arbitrary<unknown> = fc.oneof(
  fc.integer({ max: 0 }),
  fc.bigInt({ min: 2n ** 53n, max: 2n ** 80n }).map(Number),
  fc.double({ noInteger: true }),
  fc.integer({ min: 1, max: 1_000_000 }).map((n) => n - 0.5),
  fc.constantFrom(Number.NaN, Infinity, -Infinity, 2 ** 53, 2 ** 53 + 2, -0.5),
  fc.constantFrom(null, true, {}, [])
)

/** Path or query input that is not a positive decimal integer from 1 to 2^53-1. */
const malformedIdInput: fc.Arbitrary<unknown> = fc.oneof(
  invalidId,
  invalidId.map(String),
  fc.bigInt({ min: 2n ** 53n, max: 10n ** 30n }).map(String),
  fc.string().filter((s) => !/^[0-9]+$/.test(s)),
  fc.constantFrom("", "0", "00", "-1", "+1", "1.0", "1e3", " 1", "1 ", "0x1f", "9007199254740992", "9007199254740993")
)

const unknownKey = fc.oneof(
  fc.constantFrom("id", "ID", "Name", "category_id", "category", "tags", "__proto__", "constructor", "toString"),
  fc.string({ minLength: 1 })
).filter((key) => !["name", "categoryId", "status"].includes(key))

/** Adds own properties as `JSON.parse` would, `__proto__` included. */
const withProperties = (body: object, properties: ReadonlyArray<readonly [string, unknown]>): object => {
  const result = { ...body }
  for (const [key, value] of properties) {
    Object.defineProperty(result, key, { value, enumerable: true, configurable: true, writable: true })
  }
  return result
}

describe("createPet", () => {
  it.prop(
    "stores a name of 1..255 code points trimmed of surrounding white space",
    { before: padding, codePoints: trimmedName(1, maxNameLength), after: padding },
    ({ after, before, codePoints }) =>
      Effect.gen(function*() {
        const name = codePoints.join("")
        const created = yield* createPet({ name: before + name + after, categoryId: 1 })
        expect(created.name).toBe(name)
        expect(yield* getPet(created.id)).toEqual(created)
      }).pipe(runWithPets())
  )

  it.prop(
    "accepts a name exactly when it has 1 to 255 code points after trimming",
    {
      before: padding,
      codePoints: trimmedName(0, 300),
      after: padding
    },
    ({ after, before, codePoints }) =>
      Effect.gen(function*() {
        const result = yield* Effect.either(createPet({ name: before + codePoints.join("") + after, categoryId: 1 }))
        if (codePoints.length >= 1 && codePoints.length <= maxNameLength) {
          expect(Either.getRight(result).pipe(Option.map((pet) => pet.name))).toEqual(Option.some(codePoints.join("")))
        } else {
          expectInvalid(Either.flip(result).pipe(Either.getOrUndefined), "name")
        }
      }).pipe(runWithPets()),
    { fastCheck: { numRuns: 300 } }
  )

  it.effect("rejects a name of 256 astral code points and accepts 255", () =>
    Effect.gen(function*() {
      expectInvalid(yield* Effect.flip(createPet({ name: "😀".repeat(256), categoryId: 1 })), "name")
      expect((yield* createPet({ name: "😀".repeat(255), categoryId: 1 })).name).toBe("😀".repeat(255))
    }).pipe(withPets()))

  it.prop(
    "rejects a name with an unpaired surrogate, which no store could keep as sent",
    {
      before: trimmedName(0, 5),
      surrogate: fc.integer({ min: 0xd800, max: 0xdfff }).map((n) => String.fromCharCode(n)),
      after: trimmedName(0, 5)
    },
    ({ after, before, surrogate }) =>
      Effect.gen(function*() {
        const name = before.join("") + surrogate + after.join("")
        expectInvalid(yield* Effect.flip(createPet({ name, categoryId: 1 })), "name")
      }).pipe(runWithPets())
  )

  it.prop(
    "stores the given status, and available when it is omitted",
    { status: fc.option(Arbitraries.status, { nil: undefined }), categoryId },
    ({ categoryId, status }) =>
      Effect.gen(function*() {
        const body = status === undefined ? { name: "Rex", categoryId } : { name: "Rex", categoryId, status }
        const created = yield* createPet(body)
        expect(created.status).toBe(status ?? "available")
        expect(created.categoryId).toBe(categoryId)
        expect(yield* getPet(created.id)).toEqual(created)
      }).pipe(runWithPets())
  )

  it.prop(
    "rejects an unknown status",
    { status: Arbitraries.unknownStatus },
    ({ status }) =>
      Effect.gen(function*() {
        expectInvalid(yield* Effect.flip(createPet({ name: "Rex", categoryId: 1, status })), "status")
      }).pipe(runWithPets())
  )

  it.prop(
    "rejects a categoryId that is not an integer from 1 to 2^53-1, never rounding it",
    { categoryId: fc.oneof(invalidId, fc.integer({ min: 1 }).map(String)) },
    ({ categoryId }) =>
      Effect.gen(function*() {
        expectInvalid(yield* Effect.flip(createPet({ name: "Rex", categoryId })), "categoryId")
      }).pipe(runWithPets())
  )

  it.prop(
    "rejects unknown properties, id included, naming each of them",
    {
      status: fc.option(Arbitraries.status, { nil: undefined }),
      extra: fc.uniqueArray(fc.tuple(unknownKey, fc.jsonValue()), { minLength: 1, maxLength: 4, selector: ([key]) => key })
    },
    ({ extra, status }) =>
      Effect.gen(function*() {
        const body = withProperties({ name: "Rex", categoryId: 3, ...(status === undefined ? {} : { status }) }, extra)
        const error = yield* Effect.flip(createPet(body))
        for (const [key] of extra) expectInvalid(error, key)
      }).pipe(runWithPets())
  )

  it.effect("rejects a body without name or categoryId, or that is not an object", () =>
    Effect.gen(function*() {
      expectInvalid(yield* Effect.flip(createPet({ categoryId: 1 })), "name")
      expectInvalid(yield* Effect.flip(createPet({ name: "Rex" })), "categoryId")
      const neither = yield* Effect.flip(createPet({}))
      expectInvalid(neither, "name")
      expectInvalid(neither, "categoryId")
      for (const body of [null, undefined, "Rex", 1, [], [{ name: "Rex", categoryId: 1 }]]) {
        const error = yield* Effect.flip(createPet(body))
        expectInvalid(error, "(root)")
        expect(error.message).toBe("Invalid pet: (root) Expected NewPet")
      }
      expect((yield* Effect.flip(createPet({ name: "Rex", categoryId: 1, status: undefined }))).message).toBe(
        "Invalid pet: status must be one of available, pending, sold"
      )
      expect((yield* Effect.flip(createPet({ name: "Rex", categoryId: 1, id: 1 }))).message).toBe(
        "Invalid pet: id is not allowed"
      )
    }).pipe(withPets()))
})

describe("getPet", () => {
  it.prop(
    "finds a stored animal by its id as a number or a decimal string",
    { pets: Arbitraries.pets(30).filter((pets) => pets.length > 0), index: fc.nat(), asString: fc.boolean() },
    ({ asString, index, pets }) =>
      Effect.gen(function*() {
        const pet = pets[index % pets.length]!
        expect(yield* getPet(asString ? String(pet.id) : pet.id)).toEqual(pet)
      }).pipe(runWithPets(pets))
  )

  it.prop(
    "answers PetNotFound for a well-formed id that was never assigned",
    { pets: Arbitraries.pets(30), id: Arbitraries.id, asString: fc.boolean() },
    ({ asString, id, pets }) => {
      fc.pre(pets.every((pet) => pet.id !== id))
      return Effect.gen(function*() {
        const error = yield* Effect.flip(getPet(asString ? String(id) : id))
        expect(error).toEqual(new PetNotFound({ id }))
      }).pipe(runWithPets(pets))
    }
  )

  it.prop(
    "answers InvalidRequest for a malformed id",
    { id: malformedIdInput, pets: Arbitraries.pets(5) },
    ({ id, pets }) =>
      Effect.gen(function*() {
        expectInvalid(yield* Effect.flip(getPet(id)), "(root)")
      }).pipe(runWithPets(pets)),
    { fastCheck: { numRuns: 300 } }
  )

  const largest = new Pet({ id: PetId.make(2 ** 53 - 1), name: "Max", categoryId: CategoryId.make(1), status: "sold" })

  it.effect("never rounds an id beyond 2^53-1 onto the animal with the largest id", () =>
    Effect.gen(function*() {
      expect(yield* getPet("9007199254740991")).toEqual(largest)
      expect(yield* getPet(9007199254740991)).toEqual(largest)
      for (const id of ["9007199254740992", "9007199254740993", "18014398509481984", 2 ** 53, 2 ** 53 + 2]) {
        expectInvalid(yield* Effect.flip(getPet(id)), "(root)")
      }
      expect((yield* Effect.flip(getPet("9007199254740992"))).message).toBe(
        "Invalid pet id: (root) must be an integer from 1 to 9007199254740991"
      )
      expect((yield* Effect.flip(getPet("7a"))).message).toBe("Invalid pet id: (root) must be a positive decimal integer")
      expect((yield* Effect.flip(getPet(8))).message).toBe("No pet with id 8")
    }).pipe(withPets([largest])))
})
