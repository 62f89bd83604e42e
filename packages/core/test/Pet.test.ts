import { describe, expect, it } from "@effect/vitest"
import { Effect, Either, JSONSchema, Schema } from "effect"
import * as fc from "effect/FastCheck"
import { InvalidRequest } from "../src/ApiError.js"
import { maxNameLength, NewPet, Pet, PetId, PetIdFromString, PetIdInput, PetName, PetStatus } from "../src/Pet.js"
import { decodeInput } from "../src/internal/decode.js"
import * as PetInput from "../src/PetInput.js"
import * as Arbitraries from "../src/testing/internal/arbitraries.js"

const maxId = Arbitraries.maxId

/** The refusal of `input` by `schema`, as the operations report it. */
const refusal = <A, I>(schema: Schema.Schema<A, I>, input: unknown): InvalidRequest =>
  Effect.runSync(Effect.flip(decodeInput(schema, "pet")(input)))

const decoded = <A, I>(schema: Schema.Schema<A, I>, input: unknown): A => Effect.runSync(decodeInput(schema, "pet")(input))

const fields = (pet: Pet) => ({ id: pet.id, name: pet.name, categoryId: pet.categoryId, status: pet.status })

const messages = {
  id: `must be an integer from 1 to ${maxId}`,
  decimal: "must be a positive decimal integer",
  status: "must be one of available, pending, sold",
  empty: "must not be empty",
  surrogate: "must be Unicode text (no unpaired surrogates)",
  tooLong: `must be at most ${maxNameLength} characters`
}

/** Values of each field of a `Pet` that the field refuses, with the message it gives. */
const invalidField: fc.Arbitrary<readonly [keyof ReturnType<typeof fields>, unknown, string]> = fc.oneof(
  fc.oneof(fc.integer({ max: 0 }), fc.constantFrom(2 ** 53, 1.5, Number.NaN)).map((id) => ["id", id, messages.id] as const),
  fc.oneof(fc.integer({ max: 0 }), fc.constantFrom(2 ** 53, 0.5)).map((id) => ["categoryId", id, messages.id] as const),
  Arbitraries.unknownStatus.filter((s) => typeof s === "string").map((s) => ["status", s, messages.status] as const),
  fc.constantFrom(
    ["name", "", messages.empty] as const,
    ["name", "a\ud800", messages.surrogate] as const,
    ["name", "x".repeat(maxNameLength + 1), messages.tooLong] as const,
    ["name", "😀".repeat(maxNameLength + 1), messages.tooLong] as const
  )
)

describe("Pet", () => {
  it.prop("decodes every stored animal to itself", { pets: Arbitraries.pets(10) }, ({ pets }) => {
    for (const pet of pets) {
      const result = decoded(Pet, fields(pet))
      expect(result).toBeInstanceOf(Pet)
      expect(result).toEqual(pet)
      expect(Schema.encodeSync(Pet)(pet)).toEqual(fields(pet))
    }
  })

  it.prop(
    "requires every field: id, name, categoryId and status",
    { pets: Arbitraries.pets(3).filter((pets) => pets.length > 0), field: fc.constantFrom("id" as const, "name" as const, "categoryId" as const, "status" as const) },
    ({ field, pets }) => {
      const { [field]: _, ...rest } = fields(pets[0]!)
      const error = refusal(Pet, rest)
      expect(error.details).toEqual([{ path: field, message: "is missing" }])
    }
  )

  it.prop(
    "refuses a field out of its rules with the rule's message",
    { invalid: invalidField },
    ({ invalid: [field, value, message] }) => {
      const pet = { id: 7, name: "Rex", categoryId: 3, status: "sold", [field]: value }
      expect(refusal(Pet, pet).details).toEqual([{ path: field, message }])
      expect(refusal(Pet, pet).message).toBe(`Invalid pet: ${field} ${message}`)
    }
  )

  it("is described in JSON Schema with its four required fields and the id range", () => {
    const id = { type: "integer", format: "int64", minimum: 1, maximum: maxId }
    expect(JSONSchema.make(Pet)).toEqual({
      $schema: "http://json-schema.org/draft-07/schema#",
      $defs: {
        Pet: {
          type: "object",
          required: ["id", "name", "categoryId", "status"],
          properties: {
            id,
            name: { $ref: "#/$defs/NameMaxLength" },
            categoryId: id,
            status: { type: "string", enum: [...PetStatus.literals] }
          },
          additionalProperties: false
        },
        NameMaxLength: { type: "string" }
      },
      $ref: "#/$defs/Pet"
    })
  })
})

describe("PetStatus", () => {
  it("is exactly available, pending or sold, as the interface lists them", () => {
    expect(PetStatus.literals).toEqual(["available", "pending", "sold"])
    for (const status of ["available", "pending", "sold"]) expect(decoded(PetStatus, status)).toBe(status)
    expect(refusal(PetStatus, "").details).toEqual([{ path: "(root)", message: messages.status }])
  })
})

describe("PetName", () => {
  it("a refusal decoded without the operations names the rule that failed", () => {
    const rules = [
      ["", "NonEmptyName", messages.empty],
      ["a\udc00", "WellFormedName", messages.surrogate],
      ["x".repeat(maxNameLength + 1), "NameMaxLength", messages.tooLong]
    ] as const
    for (const [name, rule, message] of rules) {
      const error = Either.flip(Schema.decodeUnknownEither(PetName)(name)).pipe(Either.getOrThrow)
      expect(error.message).toContain(`${rule}\n`)
      expect(error.message).toContain(message)
    }
  })
})

describe("NewPet", () => {
  it.prop(
    "decodes to the trimmed name, the categoryId and the status, available when omitted",
    {
      newPet: Arbitraries.newPet,
      omitStatus: fc.boolean(),
      padding: fc.constantFrom("", " ", "\t ", "\n")
    },
    ({ newPet, omitStatus, padding }) => {
      const body = omitStatus
        ? { name: padding + newPet.name + padding, categoryId: newPet.categoryId }
        : { name: padding + newPet.name + padding, categoryId: newPet.categoryId, status: newPet.status }
      const expected = { name: newPet.name, categoryId: newPet.categoryId, status: omitStatus ? "available" : newPet.status }
      expect(Schema.decodeUnknownSync(NewPet)(body)).toEqual(expected)
      expect(decoded(NewPet, body)).toEqual(expected)
    }
  )

  it.prop(
    "refuses any other property, id included, naming each, whatever the parse options",
    {
      extra: fc.uniqueArray(
        fc.oneof(fc.constantFrom("id", "Name", "category", "tags"), fc.string({ minLength: 1 }))
          .filter((key) => !["name", "categoryId", "status"].includes(key)),
        { minLength: 1, maxLength: 3 }
      )
    },
    ({ extra }) => {
      const body: Record<string, unknown> = { name: "Rex", categoryId: 1 }
      for (const key of extra) Object.defineProperty(body, key, { value: 1, enumerable: true })
      expect(Either.isLeft(Schema.decodeUnknownEither(NewPet)(body))).toBe(true)
      expect(Either.isLeft(Schema.decodeUnknownEither(NewPet)(body, { onExcessProperty: "ignore" }))).toBe(true)
      const byPath = (a: { readonly path: string }, b: { readonly path: string }) => a.path < b.path ? -1 : 1
      expect([...refusal(NewPet, body).details].sort(byPath)).toEqual(
        extra.map((key) => ({ path: key, message: "is not allowed" })).sort(byPath)
      )
    }
  )

  it.effect("an explicitly undefined status is refused, as any value that is not a status", () =>
    Effect.sync(() => {
      expect(refusal(NewPet, { name: "Rex", categoryId: 1, status: undefined }).details).toEqual([
        { path: "status", message: messages.status }
      ])
    }))

  it("is described in JSON Schema with name and categoryId required and no other property", () => {
    expect(JSONSchema.make(NewPet)).toMatchObject({
      $ref: "#/$defs/NewPet",
      $defs: {
        NewPet: {
          type: "object",
          required: ["name", "categoryId"],
          properties: { status: { type: "string", enum: [...PetStatus.literals] } },
          additionalProperties: false
        }
      }
    })
  })
})

describe("PetId from input", () => {
  it.prop(
    "a number or a decimal string of an id from 1 to 2^53-1 is that id",
    { id: Arbitraries.id },
    ({ id }) => {
      expect(decoded(PetIdFromString, String(id))).toBe(id)
      expect(decoded(PetIdInput, String(id))).toBe(id)
      expect(decoded(PetIdInput, id)).toBe(id)
      // A client encodes the path parameter with the same schema.
      expect(Schema.encodeSync(PetIdFromString)(PetId.make(id))).toBe(String(id))
    }
  )

  it.prop(
    "anything else is refused: not decimal, or out of range",
    {
      text: fc.oneof(
        fc.string().filter((s) => !/^[0-9]+$/.test(s)),
        fc.constantFrom("", "-1", "+1", "1.0", "1e3", " 1", "0x1f", "1".repeat(21))
      ),
      outOfRange: fc.oneof(fc.constant("0"), fc.bigInt({ min: 2n ** 53n, max: 10n ** 20n - 1n }).map(String))
    },
    ({ outOfRange, text }) => {
      for (const input of [text, outOfRange]) {
        const message = input === text ? messages.decimal : messages.id
        expect(refusal(PetIdFromString, input).details).toEqual([{ path: "(root)", message }])
        expect(refusal(PetIdInput, input).details).toEqual([{ path: "(root)", message }])
      }
      expect(refusal(PetIdFromString, 7).details).toEqual([{ path: "(root)", message: "Expected string" }])
    }
  )

  it.prop(
    "PetInput.decodePetId gives what PetIdInput's parser gives, for every input",
    {
      input: fc.oneof(
        Arbitraries.id,
        Arbitraries.id.map(String),
        fc.stringMatching(/^[0-9]{1,22}$/),
        fc.bigInt({ min: 0n, max: 10n ** 17n }).map(String),
        fc.constantFrom("", "0", "00", "9007199254740991", "9007199254740992", "9999999999999999", "0000000000000001"),
        fc.double(),
        fc.integer({ min: -100, max: 0 }),
        fc.string(),
        fc.constantFrom(null, undefined, true, {}, [], 7n)
      )
    },
    ({ input }) => {
      const bySchema = Effect.runSync(Effect.either(decodeInput(PetIdInput, "pet id")(input)))
      expect(Effect.runSync(Effect.either(PetInput.decodePetId(input)))).toEqual(bySchema)
    }
  )
})
