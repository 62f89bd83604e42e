import { describe, expect, it } from "@effect/vitest"
import { Option, Schema } from "effect"
import { ApiKey } from "../src/ApiKey.js"

const record = {
  id: "key_0123456789abcdef",
  prefix: "ask_live_AbCd",
  digest: "0".repeat(64),
  plan: "pro",
  limits: { perMinute: 300, perDay: 10_000 },
  environment: "production",
  createdAt: new Date(1_767_225_600_000),
  revokedAt: Option.none(),
  expiresAt: Option.some(new Date(1_800_000_000_000)),
  window: "sliding",
  previousSecret: Option.some({ digest: "1".repeat(64), prefix: "ask_live_EfGh", until: new Date(1_767_312_000_000) })
}

describe("ApiKey", () => {
  it("is the schema of a key's public record: decoded and encoded field by field, named ApiKey", () => {
    const decoded = Schema.decodeUnknownEither(ApiKey)(record)
    expect(decoded._tag).toBe("Right")
    if (decoded._tag === "Right") {
      expect(decoded.right).toBeInstanceOf(ApiKey)
      expect(decoded.right.id).toBe(record.id)
      expect(decoded.right.limits).toEqual(record.limits)
      expect(Schema.encodeSync(ApiKey)(decoded.right)).toEqual(record)
    }
    expect(Schema.decodeUnknownEither(ApiKey)({ ...record, id: undefined })._tag).toBe("Left")
    expect(Schema.decodeUnknownEither(ApiKey)({ ...record, window: "rolling" })._tag).toBe("Left")
    // A key made without the fields of expiry, window and rotation never expires, is fixed, and was never rotated.
    const { expiresAt: _e, previousSecret: _p, window: _w, ...plain } = record
    expect(new ApiKey(plain as never)).toMatchObject({ expiresAt: Option.none(), window: "fixed", previousSecret: Option.none() })
    expect(ApiKey.identifier).toBe("ApiKey")
  })
})
