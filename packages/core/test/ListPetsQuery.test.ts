import { describe, expect, it } from "@effect/vitest"
import { Effect, Encoding, JSONSchema } from "effect"
import * as fc from "effect/FastCheck"
import { InvalidRequest } from "../src/ApiError.js"
import { Cursor, defaultLimit, Limit, ListPetsQuery, makeCursors, maxLimit, randomCursorSecret } from "../src/ListPetsQuery.js"
import { PetId, PetStatus } from "../src/Pet.js"
import * as Arbitraries from "../src/testing/internal/arbitraries.js"
import { ClientOperations, runWithPets } from "./internal/operations.js"

const listPets = (query: unknown) => Effect.flatMap(ClientOperations, (operations) => operations.listPets(query))

/** The refusal of `query`, on an empty store. */
const refusal = (query: unknown): unknown => Effect.flip(listPets(query)).pipe(runWithPets([]))

/** `error` is an `InvalidRequest` with exactly one problem, `path` `message`, which its message names. */
const expectRefused = (error: unknown, path: string, message: string): void => {
  expect(error).toBeInstanceOf(InvalidRequest)
  expect((error as InvalidRequest).details).toEqual([{ path, message }])
  expect((error as InvalidRequest).message).toBe(`Invalid query: ${path} ${message}`)
}

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
    "a cursor opens, with the secret it was sealed with, to its id for its status only",
    {
      id: Arbitraries.id,
      status: fc.option(Arbitraries.status, { nil: undefined }),
      other: fc.option(Arbitraries.status, { nil: undefined }),
      secret: fc.uint8Array({ minLength: 32, maxLength: 32 }),
      otherSecret: fc.uint8Array({ minLength: 32, maxLength: 32 })
    },
    ({ id, other, otherSecret, secret, status }) => {
      const cursor = makeCursors(secret).seal(status, PetId.make(id))
      expect(cursor).toMatch(/^c1\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{22}$/)
      expect(cursor.split(".")[1]).toBe(Encoding.encodeBase64Url(String(id)))
      expect(makeCursors(secret).open(cursor, status)).toBe(id)
      if (other !== status) expect(makeCursors(secret).open(cursor, other)).toBeUndefined()
      if (Buffer.compare(Buffer.from(secret), Buffer.from(otherSecret)) !== 0) {
        expect(makeCursors(otherSecret).open(cursor, status)).toBeUndefined()
      }
    }
  )

  it.prop(
    "a cursor with any one character changed does not open",
    {
      id: Arbitraries.id,
      status: fc.option(Arbitraries.status, { nil: undefined }),
      at: fc.nat(),
      char: fc.constantFrom(..."ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.")
    },
    ({ at, char, id, status }) => {
      const cursors = makeCursors("a secret of this test, long enough to be one")
      const cursor = cursors.seal(status, PetId.make(id))
      const position = at % cursor.length
      fc.pre(cursor[position] !== char)
      expect(cursors.open(cursor.slice(0, position) + char + cursor.slice(position + 1), status)).toBeUndefined()
      expect(cursors.open(cursor + char, status)).toBeUndefined()
      expectRefused(refusal({ cursor: cursor + char }), "cursor", "is not a valid cursor")
    }
  )

  it("a random cursor secret is 32 random bytes in base64url, new on each call", () => {
    const secrets = Array.from({ length: 8 }, () => randomCursorSecret())
    for (const secret of secrets) {
      expect(secret).toMatch(/^[A-Za-z0-9_-]{43}$/)
      expect(Buffer.from(secret, "base64url")).toHaveLength(32)
    }
    expect(new Set(secrets).size).toBe(secrets.length)
  })

  it.prop(
    "a bare base64url id, another prefix, or c1. followed by anything but base64url parts is not a valid cursor",
    {
      id: Arbitraries.id,
      at: fc.nat(),
      char: notBase64Url,
      prefix: fc.constantFrom("", "p1.", "c2.", "C1.", "c1", "c1-", ".c1.", "xc1."),
      text: notAnId
    },
    ({ at, char, id, prefix, text }) => {
      const encoded = Encoding.encodeBase64Url(String(id))
      const seal = "A".repeat(22)
      const position = at % (encoded.length + 1)
      for (
        const cursor of [
          prefix + encoded,
          `${prefix}${encoded}.${seal}`,
          `c1.${encoded.slice(0, position)}${char}${encoded.slice(position)}.${seal}`,
          `c1.${Encoding.encodeBase64Url(text)}`
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
      $defs: { Cursor: { type: "string" } },
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
