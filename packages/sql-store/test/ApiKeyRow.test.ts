import { ApiKey } from "@animal-store/core"
import { describe, expect, it } from "@effect/vitest"
import { Arbitrary, Option } from "effect"
import * as fc from "effect/FastCheck"
import { ApiKeyRow } from "../src/index.js"

const valid = (date: Date): boolean => !Number.isNaN(date.getTime())
const keys = Arbitrary.make(ApiKey.ApiKey).filter((key) =>
  valid(key.createdAt) && !Option.exists(key.revokedAt, (at) => !valid(at)) && !Option.exists(key.expiresAt, (at) => !valid(at)) &&
  !Option.exists(key.previousSecret, (previous) => !valid(previous.until))
)

describe("ApiKeyRow", () => {
  it("a key's row reads back as the key, also with integers as decimal strings", () => {
    fc.assert(fc.property(keys, (key) => {
      const row = ApiKeyRow.fromApiKey(key)
      expect(row).toHaveLength(ApiKeyRow.columns.split(", ").length)
      const read = ApiKeyRow.toApiKey(row)
      expect(read).toBeInstanceOf(ApiKey.ApiKey)
      expect(read).toEqual(key)
      expect(ApiKeyRow.toApiKey(row.map((value) => typeof value === "number" ? String(value) : value) as unknown as ApiKeyRow.ApiKeyRow))
        .toEqual(key)
    }))
  })

  it("an active key's revoked_at is null, as are the expiry and previous secret of a key without them", () => {
    const key = new ApiKey.ApiKey({
      id: "key_1",
      prefix: "ask_live_abcd",
      digest: "d".repeat(64),
      plan: "pro",
      limits: { perMinute: 600, perDay: 100_000 },
      environment: "production",
      createdAt: new Date(1_700_000_000_000),
      revokedAt: Option.none()
    })
    expect(ApiKeyRow.fromApiKey(key)).toEqual(["key_1", "ask_live_abcd", "d".repeat(64), "pro", 600, 100_000, "production", 1_700_000_000_000, null, null, "fixed", null, null, null])
  })
})
