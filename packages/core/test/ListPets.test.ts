import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as fc from "effect/FastCheck"
import type { InvalidRequest } from "../src/ApiError.js"
import type { PetPage } from "../src/ListPetsQuery.js"
import * as ListPetsQuery from "../src/ListPetsQuery.js"
import { maxLimit } from "../src/ListPetsQuery.js"
import type { Pet, PetStatus } from "../src/Pet.js"
import * as PetOperations from "../src/PetOperations.js"
import type { StoreError } from "../src/StoreError.js"
import * as Arbitraries from "../src/testing/internal/arbitraries.js"
import { ClientOperations, expectInvalid, runWithPets } from "./internal/operations.js"

const listPets = (query: unknown) => Effect.flatMap(ClientOperations, (operations) => operations.listPets(query))

const ascendingIds = (pets: ReadonlyArray<Pet>, status?: PetStatus): ReadonlyArray<number> =>
  pets.filter((pet) => status === undefined || pet.status === status).map((pet) => pet.id).sort((a, b) => a - b)

/** Lists page after page, following `nextCursor`, running `between` before each next page. */
const walk = (
  query: { readonly status?: PetStatus | undefined; readonly limit: number },
  between: () => Effect.Effect<void, InvalidRequest | StoreError, PetOperations.PetOperations> = () => Effect.void
) =>
  Effect.gen(function*() {
    const first = { limit: query.limit, ...(query.status === undefined ? {} : { status: query.status }) }
    const pages: Array<PetPage> = [yield* listPets(first)]
    for (let page = pages[0]!; page.nextCursor !== undefined && pages.length <= maxPages;) {
      yield* between()
      page = yield* listPets({ ...first, cursor: page.nextCursor })
      pages.push(page)
    }
    return pages
  })

const maxPages = 1_000

const idsOf = (pets: ReadonlyArray<Pet>) => pets.map((pet) => pet.id)

const stored = Arbitraries.pets(150)
const limit = fc.integer({ min: 1, max: maxLimit })
/** A limit as a number or, as in a query string, a decimal string. */
const limitInput = fc.tuple(limit, fc.boolean()).map(([n, asString]) => (asString ? String(n) : n))

const invalidLimit: fc.Arbitrary<unknown> = fc.oneof(
  fc.integer({ max: 0 }),
  fc.integer({ min: maxLimit + 1 }),
  fc.integer({ min: 1, max: 20_000 }).filter((n) => n % 100 !== 0).map((n) => n / 100),
  fc.double({ noInteger: true }),
  fc.constantFrom(0, maxLimit + 1, Number.NaN, Infinity, -Infinity, 1e300, -0.5),
  fc.integer({ max: 0 }).map(String),
  fc.integer({ min: maxLimit + 1 }).map(String),
  fc.string().filter((s) => !/^[0-9]+$/.test(s)),
  fc.constantFrom("0", "101", "1.5", "1e2", " 5", "5 ", "+5", "-5", "0x10", "", "20abc"),
  fc.constantFrom(null, true, {}, [20])
)

describe("listPets", () => {
  it.prop(
    "with a limit in 1..100 returns min(n, limit) animals, the lowest ids in ascending order",
    { pets: stored, limit: limitInput },
    ({ limit, pets }) =>
      Effect.gen(function*() {
        const page = yield* listPets({ limit })
        const expected = ascendingIds(pets).slice(0, Number(limit))
        expect(page.pets.length).toBe(Math.min(pets.length, Number(limit)))
        expect(idsOf(page.pets)).toEqual(expected)
        if (pets.length > Number(limit)) expect(page.nextCursor).toBeTypeOf("string")
        else expect(page.nextCursor).toBeUndefined()
      }).pipe(runWithPets(pets)),
    { fastCheck: { numRuns: 300 } }
  )

  it.prop(
    "without a limit returns min(n, 20) animals",
    { pets: stored },
    ({ pets }) =>
      Effect.gen(function*() {
        const page = yield* listPets({})
        expect(page.pets.length).toBe(Math.min(pets.length, 20))
        expect(idsOf(page.pets)).toEqual(ascendingIds(pets).slice(0, 20))
      }).pipe(runWithPets(pets))
  )

  it.prop(
    "a limit out of 1..100 or not an integer is an invalid request",
    { limit: invalidLimit },
    ({ limit }) =>
      Effect.gen(function*() {
        expectInvalid(yield* Effect.flip(listPets({ limit })), "limit")
      }).pipe(runWithPets([])),
    { fastCheck: { numRuns: 300 } }
  )

  it.prop(
    "a status filter returns only animals with that status",
    { pets: stored, status: Arbitraries.status, limit: fc.option(limit, { nil: undefined }) },
    ({ limit, pets, status }) =>
      Effect.gen(function*() {
        const page = yield* listPets(limit === undefined ? { status } : { status, limit })
        expect(page.pets.every((pet) => pet.status === status)).toBe(true)
        expect(idsOf(page.pets)).toEqual(ascendingIds(pets, status).slice(0, limit ?? 20))
      }).pipe(runWithPets(pets))
  )

  it.prop(
    "an unknown status is an invalid request",
    { status: Arbitraries.unknownStatus },
    ({ status }) =>
      Effect.gen(function*() {
        expectInvalid(yield* Effect.flip(listPets({ status })), "status")
      }).pipe(runWithPets([]))
  )

  it.prop(
    "walking the cursors returns each matching animal exactly once, in ascending id order",
    { pets: stored, status: fc.option(Arbitraries.status, { nil: undefined }), limit },
    ({ limit, pets, status }) =>
      Effect.gen(function*() {
        const expected = ascendingIds(pets, status)
        const pages = yield* walk({ status, limit })
        for (const page of pages) {
          if (page.nextCursor === undefined) expect(page.pets.length).toBeLessThanOrEqual(limit)
          else expect(page.pets.length).toBe(limit)
        }
        expect(pages.flatMap((page) => idsOf(page.pets))).toEqual(expected)
        expect(pages.length).toBe(Math.max(1, Math.ceil(expected.length / limit)))
      }).pipe(runWithPets(pets)),
    { fastCheck: { numRuns: 300 } }
  )

  it.prop(
    "animals added while walking come after the others, and none appears twice or is skipped",
    {
      pets: Arbitraries.pets(150).filter((pets) => pets.every((pet) => pet.id < Arbitraries.maxId - 10)),
      added: fc.array(Arbitraries.newPet, { maxLength: 10 }),
      limit: fc.integer({ min: 1, max: 10 })
    },
    ({ added, limit, pets }) =>
      Effect.gen(function*() {
        const operations = yield* ClientOperations
        const toAdd = [...added]
        const created: Array<number> = []
        const pages = yield* walk({ limit }, () =>
          Effect.gen(function*() {
            const next = toAdd.shift()
            if (next !== undefined) created.push((yield* operations.createPet(next)).id)
          }))
        expect(pages.flatMap((page) => idsOf(page.pets))).toEqual([...ascendingIds(pets), ...created])
      }).pipe(runWithPets(pets))
  )

  it.prop(
    "a malformed cursor is an invalid request",
    {
      cursor: fc.oneof(
        fc.string(),
        fc.nat().map(String),
        fc.constantFrom("p1.", "p1.MA", "p1.LTE", "p1.MS41", "p1.OTAwNzE5OTI1NDc0MDk5Mg", "p2.MQ", 5, null)
      )
    },
    ({ cursor }) =>
      Effect.gen(function*() {
        expectInvalid(yield* Effect.flip(listPets({ cursor })), "cursor")
      }).pipe(runWithPets([]))
  )

  it.prop(
    "a cursor is bound to its status and cannot be altered or forged",
    {
      pets: stored,
      statuses: fc.tuple(fc.option(Arbitraries.status, { nil: undefined }), fc.option(Arbitraries.status, { nil: undefined }))
        .filter(([a, b]) => a !== b),
      flip: fc.nat(),
      guess: fc.integer({ min: 1, max: 200 })
    },
    ({ flip, guess, pets, statuses: [issuedFor, usedWith] }) =>
      Effect.gen(function*() {
        const all = yield* listPets({ limit: 100 })
        const [first] = all.pets
        const withStatus = (status: PetStatus | undefined) => (status === undefined ? {} : { status })
        // a cursor of the listing `issuedFor`, whether or not it has more animals
        const operations = yield* ClientOperations
        const page = yield* operations.listPets({ limit: 1, ...withStatus(issuedFor) })
        if (page.nextCursor !== undefined) {
          const cursor = page.nextCursor
          expect((yield* listPets({ limit: 1, cursor, ...withStatus(issuedFor) })).pets).toHaveLength(1)
          expectInvalid(yield* Effect.flip(listPets({ cursor, ...withStatus(usedWith) })), "cursor")
          const at = 3 + (flip % (cursor.length - 3))
          const altered = cursor.slice(0, at) + (cursor[at] === "A" ? "B" : "A") + cursor.slice(at + 1)
          expectInvalid(yield* Effect.flip(listPets({ cursor: altered, ...withStatus(issuedFor) })), "cursor")
        }
        // the old guessable form, and the shape of a cursor with a guessed seal
        const id = Buffer.from(String(first?.id ?? guess)).toString("base64url")
        for (const forged of [`p1.${id}`, `c1.${id}.${"A".repeat(22)}`]) {
          expectInvalid(yield* Effect.flip(listPets({ cursor: forged, ...withStatus(issuedFor) })), "cursor")
        }
      }).pipe(runWithPets(pets))
  )

  it.effect("cursors sealed with one secret open with the same secret only (processes sharing a store)", () =>
    Effect.sync(() => {
      const a = ListPetsQuery.makeCursors("secret-shared-by-every-process-0001")
      const b = ListPetsQuery.makeCursors("secret-shared-by-every-process-0001")
      const other = ListPetsQuery.makeCursors("another-secret-00000000000000000000")
      const cursor = a.seal("sold", 42 as Pet["id"])
      expect(b.open(cursor, "sold")).toBe(42)
      expect(b.open(cursor, undefined)).toBeUndefined()
      expect(other.open(cursor, "sold")).toBeUndefined()
    }))

  it.effect("the CursorSecret of the context seals the cursors of PetOperations", () =>
    Effect.gen(function*() {
      const secret = "configured-cursor-secret-0000000000"
      const cursors = yield* Effect.provide(ListPetsQuery.cursors, ListPetsQuery.layerCursorSecret(secret))
      const cursor = ListPetsQuery.makeCursors(secret).seal(undefined, 7 as Pet["id"])
      expect(cursors.open(cursor, undefined)).toBe(7)
      const random = yield* ListPetsQuery.cursors
      expect(random.open(cursor, undefined)).toBeUndefined()
    }))

  it.prop(
    "unknown query parameters are ignored",
    {
      pets: stored,
      status: fc.option(Arbitraries.status, { nil: undefined }),
      extra: fc.dictionary(
        fc.string().filter((key) => !["limit", "status", "cursor"].includes(key)),
        fc.oneof(fc.string(), fc.integer()),
        { minKeys: 1 }
      )
    },
    ({ extra, pets, status }) =>
      Effect.gen(function*() {
        const query = status === undefined ? { limit: 7 } : { limit: 7, status }
        expect(yield* listPets({ ...extra, ...query })).toEqual(yield* listPets(query))
      }).pipe(runWithPets(pets))
  )
})
