import { ApiKey } from "@animal-store/core"
import { describe, expect, it } from "@effect/vitest"
import { Arbitrary, Option } from "effect"
import * as fc from "effect/FastCheck"
import { ApiKeyRow, RateLimitRow, SqlRow } from "../src/index.js"

const valid = (date: Date): boolean => !Number.isNaN(date.getTime())
const keys = Arbitrary.make(ApiKey.ApiKey).filter((key) =>
  valid(key.createdAt) && !Option.exists(key.revokedAt, (at) => !valid(at)) && !Option.exists(key.expiresAt, (at) => !valid(at)) &&
  !Option.exists(key.previousSecret, (previous) => !valid(previous.until))
)
const decimal = (row: ReadonlyArray<unknown>) => row.map((value) => typeof value === "number" ? String(value) : value)
const replaced = (row: ReadonlyArray<unknown>, at: number, value: unknown) => row.map((old, i) => i === at ? value : old)

describe("SqlRow", () => {
  it("a key's row, as the stores write it and as drivers read it back, passes its guard; a row of another shape does not", () => {
    fc.assert(fc.property(keys, (key) => {
      const row = ApiKeyRow.fromApiKey(key)
      expect(ApiKeyRow.isApiKeyRow(row)).toBe(true)
      expect(ApiKeyRow.isApiKeyRow(decimal(row))).toBe(true)
      expect(ApiKeyRow.isApiKeyRow([...row, "revoked"])).toBe(true)
      expect(ApiKeyRow.isApiKeyRow(row.slice(0, -1))).toBe(false)
      expect(ApiKeyRow.isApiKeyRow(replaced(row, 3, "platinum"))).toBe(false)
      expect(ApiKeyRow.isApiKeyRow(replaced(row, 0, null))).toBe(false)
    }))
  })

  it("a rate-limit row passes its guard, with NULL counters too; a row without a subject does not", () => {
    const counters = RateLimitRow.countersOf({
      minuteStart: 60_000,
      minuteCount: 3,
      dayStart: 0,
      dayCount: 3,
      refusedCount: 0,
      bannedUntil: 0,
      previousMinuteCount: 1
    })
    expect(RateLimitRow.isRateLimitRow(["s", ...counters])).toBe(true)
    expect(RateLimitRow.isRateLimitRow(["s", ...decimal(counters)])).toBe(true)
    expect(RateLimitRow.isRateLimitRow(["s", ...counters.map(() => null)])).toBe(true)
    expect(RateLimitRow.isRateLimitRow([1, ...counters])).toBe(false)
    expect(RateLimitRow.isRateLimitRow(["s", ...counters, {}])).toBe(false)
  })

  it("rows a guard refuses fail with a SqlError naming the statement", () => {
    const isRow = SqlRow.tuple(SqlRow.isString, SqlRow.isNullOr(SqlRow.isInteger), SqlRow.isLiteral(["a", "b"]))
    expect(SqlRow.check([["x", null, "a"], ["y", "12", "b"]], isRow, "SELECT 1")).toEqual([["x", null, "a"], ["y", "12", "b"]])
    expect(() => SqlRow.check([["x", null, "a"], ["y", 1, "c"]], isRow, "SELECT 1")).toThrow(
      expect.objectContaining({ _tag: "SqlError", message: expect.stringContaining("SELECT 1") })
    )
    expect(() => SqlRow.check([{ x: 1 }], isRow, "SELECT 1")).toThrow(expect.objectContaining({ _tag: "SqlError" }))
  })
})
