import { describe, expect, it } from "@effect/vitest"
import { Option } from "effect"
import * as fc from "effect/FastCheck"
import { ApiKey, Environment } from "../src/ApiKey.js"
import { Plan } from "../src/Plan.js"
import { CategoryId, Pet, PetId } from "../src/Pet.js"
import * as StoreError from "../src/StoreError.js"
import * as StoreRows from "../src/StoreRows.js"
import * as Arbitraries from "../src/testing/internal/arbitraries.js"

const instant = fc.integer({ min: 0, max: 4_102_444_800_000 }).map((ms) => new Date(ms))

const apiKey = fc.record({
  id: fc.string(),
  prefix: fc.string(),
  digest: fc.hexaString({ minLength: 64, maxLength: 64 }),
  plan: fc.constantFrom(...Plan.literals),
  limits: fc.record({ perMinute: fc.integer({ min: 1, max: 10 ** 9 }), perDay: fc.integer({ min: 1, max: 10 ** 12 }) }),
  environment: fc.constantFrom(...Environment.literals),
  createdAt: instant,
  revokedAt: fc.option(instant, { nil: undefined }).map(Option.fromNullable)
}).map((fields) => new ApiKey(fields))

describe("StoreRows", () => {
  it.prop("a key's row gives the key back, with its integers as numbers or as decimal strings", { key: apiKey }, ({ key }) => {
    const row = StoreRows.apiKeyRow(key)
    expect(row).toHaveLength(StoreRows.apiKeyColumns.split(", ").length)
    expect(StoreRows.apiKey(row)).toEqual(key)
    expect(StoreRows.apiKey(row)).toBeInstanceOf(ApiKey)
    // PostgreSQL's bigint columns arrive as strings.
    const asStrings = row.map((value, i) => i >= 4 && i !== 6 && value !== null ? String(value) : value)
    expect(StoreRows.apiKey(asStrings as unknown as StoreRows.ApiKeyRow)).toEqual(key)
  })

  it.prop(
    "a pet's columns give the pet its constructor would make",
    { id: Arbitraries.id, name: Arbitraries.name(), categoryId: Arbitraries.id, status: Arbitraries.status },
    ({ categoryId, id, name, status }) => {
      const pet = StoreRows.pet(id, name, categoryId, status)
      expect(pet).toBeInstanceOf(Pet)
      expect(pet).toEqual(new Pet({ id: PetId.make(id), name, categoryId: CategoryId.make(categoryId), status }))
    }
  )
})

describe("StoreError cause helpers", () => {
  const chain = () => {
    const root = Object.assign(new Error("disk I/O error"), { code: "SQLITE_IOERR_WRITE" })
    const middle = Object.assign(new Error("statement failed", { cause: root }), { code: 42 })
    return new Error("Storing an animal", { cause: middle })
  }

  it("walk the cause chain outermost first, to the first code accepted", () => {
    expect(StoreError.causeChain(chain()).map((link) => (link as Error).message)).toEqual([
      "Storing an animal",
      "statement failed",
      "disk I/O error"
    ])
    expect(StoreError.codeAlongCauses(chain(), (code) => code.startsWith("SQLITE_"))).toBe("SQLITE_IOERR_WRITE")
    expect(StoreError.codeAlongCauses(chain(), (code) => code.startsWith("08"))).toBeUndefined()
    expect(StoreError.messagesAlongCauses(chain())).toBe("Storing an animal: statement failed: disk I/O error")
    expect(StoreError.messagesAlongCauses("plain text")).toBe("plain text")
  })

  it("stop after 8 links, and on a cycle", () => {
    const cyclic: { cause?: unknown; code: string } = { code: "X" }
    cyclic.cause = cyclic
    expect(StoreError.causeChain(cyclic)).toHaveLength(8)
    let deep: unknown = Object.assign(new Error("deepest"), { code: "SQLITE_FULL" })
    for (let i = 0; i < 9; i++) deep = new Error(`level ${i}`, { cause: deep })
    expect(StoreError.codeAlongCauses(deep, () => true)).toBeUndefined()
  })
})
