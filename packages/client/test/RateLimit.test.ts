import { describe, expect, it } from "@effect/vitest"
import { FastCheck as fc } from "effect"
import * as RateLimit from "../src/RateLimit.js"

const reader = (headers: Record<string, string>): RateLimit.HeaderReader => (name) => headers[name]

describe("RateLimit", () => {
  it("reads the three headers, or nothing when one is missing or not an integer", () => {
    expect(RateLimit.fromHeaders(reader({ "x-ratelimit-limit": "60", "x-ratelimit-remaining": "0", "x-ratelimit-reset": "120" })))
      .toEqual({ limit: 60, remaining: 0, reset: 120 })
    expect(RateLimit.fromHeaders(reader({ "x-ratelimit-limit": "60", "x-ratelimit-reset": "120" }))).toBeUndefined()
    expect(RateLimit.fromHeaders(reader({ "x-ratelimit-limit": "6x", "x-ratelimit-remaining": "1", "x-ratelimit-reset": "1" })))
      .toBeUndefined()
  })

  it("reads Retry-After in seconds or as a date", () => {
    expect(RateLimit.retryAfterMillis(reader({ "retry-after": "7" }), 0)).toBe(7000)
    expect(RateLimit.retryAfterMillis(reader({ "retry-after": "Thu, 01 Jan 1970 00:00:10 GMT" }), 4000)).toBe(6000)
    expect(RateLimit.retryAfterMillis(reader({ "retry-after": "soon" }), 0)).toBeUndefined()
    expect(RateLimit.retryAfterMillis(reader({}), 0)).toBeUndefined()
  })

  it("with pacing, holds requests from a spent window until its reset, and never otherwise", () =>
    fc.assert(fc.property(fc.nat(100), fc.nat(1_000_000), fc.nat(2_000_000), fc.boolean(), (remaining, reset, now, pacing) => {
      const budget = RateLimit.observe(RateLimit.unknown, { rateLimit: { limit: 100, remaining, reset } }, 0)
      const admission = RateLimit.admit(budget, now, pacing)
      if (pacing && remaining === 0 && now < reset * 1000) {
        expect(admission).toEqual({ _tag: "Wait", millis: reset * 1000 - now })
      } else {
        expect(admission).toEqual({ _tag: "Send" })
      }
    })))

  it("counts the requests it sends against what the last response said", () => {
    let budget = RateLimit.observe(RateLimit.unknown, { rateLimit: { limit: 60, remaining: 2, reset: 60 } }, 0)
    budget = RateLimit.spend(budget, 1000)
    budget = RateLimit.spend(budget, 1000)
    expect(RateLimit.admit(budget, 1000, true)).toEqual({ _tag: "Wait", millis: 59_000 })
    expect(RateLimit.spend(budget, 60_000).remaining).toBeUndefined()
  })

  it("after a 429 waits Retry-After; after a ban refuses until it ends, pacing or not", () => {
    const limited = RateLimit.observe(RateLimit.unknown, { rateLimit: undefined, code: "rate_limited", retryAfterMillis: 5000 }, 1000)
    expect(RateLimit.admit(limited, 1000, true)).toEqual({ _tag: "Wait", millis: 5000 })
    const banned = RateLimit.observe(RateLimit.unknown, { rateLimit: undefined, code: "api_key_banned", retryAfterMillis: 900_000 }, 0)
    expect(RateLimit.admit(banned, 899_999, false)).toEqual({ _tag: "Banned", until: 900_000 })
    expect(RateLimit.admit(banned, 900_000, false)).toEqual({ _tag: "Send" })
  })
})
