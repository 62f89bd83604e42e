import { describe, expect, it } from "@effect/vitest"
import { Effect, Encoding, JSONSchema } from "effect"
import * as fc from "effect/FastCheck"
import { InvalidRequest } from "../src/ApiError.js"
import { Cursor, defaultLimit, encodeCursor, Limit, ListPetsQuery, maxLimit } from "../src/ListPetsQuery.js"
import { PetId, PetStatus } from "../src/Pet.js"
import * as PetOperations from "../src/PetOperations.js"
import * as Arbitraries from "./internal/arbitraries.js"
import { runWithPets } from "./internal/operations.js"

const listPets = (query: unknown) => Effect.flatMap(PetOperations.PetOperations, (operations) => operations.listPets(query))

/** The refusal of `query`, on an empty store. */
const refusal = (query: unknown): unknown => Effect.flip(listPets(query)).pipe(runWithPets([]))

/** `error` is an `InvalidRequest` with exactly one problem, `path` `message`, which its message names. */
const expectRefused = (error: unknown, path: string, message: string): void => {
  expect(error).toBeInstanceOf(InvalidRequest)
  expect((error as InvalidRequest).details).toEqual([{ path, message }])
  expect((error as InvalidRequest).message).toBe(`Invalid query: ${path} ${message}`)
}

/** The cursor of the current format: `p1.` and the base64url of the decimal id. */
const cursorOf = (id: number): string => "p1." + Encoding.encodeBase64Url(String(id))

/**
 * Characters that are not in the base64url alphabet. (`=` padding at the end and
 * line breaks, which the decoder skips, are left out: they do not change the id.)
 */
const notBase64Url = fc.constantFrom(" ", "\t", "+", "/", ".", "!", "%", "~", "é", "\u0000", "😀")

/** Text that is not the decimal form of an id from 1 to 2^53-1. */
const notAnId = fc.oneof(
  fc.string().filter((s) => !/^[0-9]+$/.test(s) || Number(s) < 1 || Number(s) > Arbitraries.maxId),
  fc.constantFrom("", "0", "-1", "+1", "1.5", "1e3", " 1", "1 ", "0x10", "9007199254740992", "18014398509481984")
)

describe("ListPetsQuery", () => {
  it.prop(
    "a cursor is p1. and the base64url of the id after which the listing goes on",
    { pets: Arbitraries.pets(40), after: Arbitraries.id },
    ({ after, pets }) =>
      Effect.gen(function*() {
        expect(encodeCursor(PetId.make(after))).toBe(cursorOf(after))
        const page = yield* listPets({ cursor: cursorOf(after), limit: maxLimit })
        expect(page.pets.map((pet) => pet.id)).toEqual(
          pets.map((pet) => pet.id).filter((id) => id > after).sort((a, b) => a - b)
        )
      }).pipe(runWithPets(pets))
  )

  it.prop(
    "a bare base64url id, another prefix, or p1. followed by anything but the base64url of an id is not a valid cursor",
    {
      id: Arbitraries.id,
      at: fc.nat(),
      char: notBase64Url,
      prefix: fc.constantFrom("", "p2.", "P1.", "p1", "p1-", ".p1.", "xp1.", "q1."),
      text: notAnId
    },
    ({ at, char, id, prefix, text }) => {
      const encoded = Encoding.encodeBase64Url(String(id))
      const position = at % (encoded.length + 1)
      for (
        const cursor of [
          prefix + encoded,
          "p1." + encoded.slice(0, position) + char + encoded.slice(position),
          "p1." + Encoding.encodeBase64Url(text)
        ]
      ) {
        expectRefused(refusal({ cursor }), "cursor", "is not a valid cursor")
      }
    }
  )

  it.effect("explicitly undefined fields are refused, as any value of the wrong type", () =>
    Effect.sync(() => {
      expectRefused(refusal({ limit: undefined }), "limit", "must be a positive decimal integer")
      expectRefused(refusal({ status: undefined }), "status", "must be one of available, pending, sold")
      expectRefused(refusal({ cursor: undefined }), "cursor", "Expected string")
      expectRefused(refusal({ cursor: 5 }), "cursor", "Expected string")
    }))

  it.prop(
    "a limit that is a number but not an integer from 1 to 100 is refused with the bounds",
    {
      limit: fc.oneof(
        fc.integer({ max: 0 }),
        fc.integer({ min: maxLimit + 1 }),
        fc.double({ noInteger: true, noNaN: true }),
        fc.constantFrom(Number.NaN, Infinity, -Infinity, 0.5, 100.5),
        fc.oneof(fc.constant(0), fc.integer({ min: maxLimit + 1, max: 10 ** 15 })).map(String)
      )
    },
    ({ limit }) => expectRefused(refusal({ limit }), "limit", "must be an integer from 1 to 100")
  )

  it.prop(
    "a limit that is neither a number nor a decimal string is refused as such",
    { limit: fc.oneof(fc.string().filter((s) => !/^[0-9]+$/.test(s)), fc.constantFrom(null, true, {}, [20], "1".repeat(21))) },
    ({ limit }) => expectRefused(refusal({ limit }), "limit", "must be a positive decimal integer")
  )

  it.effect("every problem of a query is listed, the first one in the message", () =>
    Effect.sync(() => {
      const error = refusal({ limit: 0, status: "lost", cursor: "MQ" }) as InvalidRequest
      expect(error.details).toEqual([
        { path: "limit", message: "must be an integer from 1 to 100" },
        { path: "status", message: "must be one of available, pending, sold" },
        { path: "cursor", message: "is not a valid cursor" }
      ])
      expect(error.message).toBe("Invalid query: limit must be an integer from 1 to 100")
    }))

  it("the schemas describe the limit's bounds and default and the cursor in JSON Schema", () => {
    expect(JSONSchema.make(Limit)).toEqual({
      $schema: "http://json-schema.org/draft-07/schema#",
      $defs: { Limit: { type: "integer", minimum: 1, maximum: maxLimit, default: defaultLimit } },
      $ref: "#/$defs/Limit"
    })
    expect(JSONSchema.make(Cursor)).toEqual({
      $schema: "http://json-schema.org/draft-07/schema#",
      $defs: { Cursor: { type: "string", description: "Opaque token from a previous page's next link" } },
      $ref: "#/$defs/Cursor"
    })
    expect(JSONSchema.make(ListPetsQuery)).toMatchObject({
      $ref: "#/$defs/ListPetsQuery",
      $defs: {
        ListPetsQuery: {
          type: "object",
          required: [],
          properties: { status: { type: "string", enum: [...PetStatus.literals] }, cursor: { $ref: "#/$defs/Cursor" } }
        }
      }
    })
  })
})
