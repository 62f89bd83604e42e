import { describe, expect, it } from "@effect/vitest"
import { FastCheck as fc } from "effect"
import * as RetryPolicy from "../src/RetryPolicy.js"

const policies = fc.record({
  maxAttempts: fc.integer({ min: 1, max: 20 }),
  baseDelayMillis: fc.integer({ min: 0, max: 5_000 }),
  maxDelayMillis: fc.integer({ min: 0, max: 120_000 }),
  jitter: fc.double({ min: 0, max: 0.5, noNaN: true })
}).map(RetryPolicy.make)
const unit = fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true })

describe("RetryPolicy", () => {
  it("never retries before Retry-After", () =>
    fc.assert(fc.property(policies, fc.integer({ min: 1, max: 30 }), fc.nat(3_600_000), unit, (policy, retry, after, u) => {
      expect(RetryPolicy.delay(policy, retry, after, u)).toBeGreaterThanOrEqual(after)
    })))

  it("takes off at most the jitter's share of the backoff, and caps it", () =>
    fc.assert(fc.property(policies, fc.integer({ min: 1, max: 30 }), fc.nat(60_000), unit, (policy, retry, after, u) => {
      const backoff = RetryPolicy.backoff(policy, retry)
      const waited = RetryPolicy.delay(policy, retry, after, u) - after
      expect(backoff).toBeLessThanOrEqual(policy.maxDelayMillis)
      expect(waited).toBeLessThanOrEqual(backoff)
      expect(waited).toBeGreaterThanOrEqual(backoff * (1 - policy.jitter) - 1e-9)
    })))

  it("doubles the backoff with each retry until the cap, so a later retry never waits less", () =>
    fc.assert(fc.property(policies, fc.integer({ min: 1, max: 29 }), unit, unit, (policy, retry, u1, u2) => {
      const now = RetryPolicy.backoff(policy, retry)
      const next = RetryPolicy.backoff(policy, retry + 1)
      expect(next).toBe(Math.min(policy.maxDelayMillis, now * 2))
      if (next < policy.maxDelayMillis) {
        expect(RetryPolicy.delay(policy, retry + 1, 0, u2)).toBeGreaterThanOrEqual(RetryPolicy.delay(policy, retry, 0, u1))
      }
    })))

  it("allows maxAttempts attempts in all", () =>
    fc.assert(fc.property(policies, (policy) => {
      const attempts = Array.from({ length: 25 }, (_, i) => i + 1).filter((n) => n === 1 || RetryPolicy.canRetry(policy, n - 1))
      expect(attempts.length).toBe(Math.min(25, policy.maxAttempts))
    })))

  it("refuses settings out of range", () => {
    expect(() => RetryPolicy.make({ maxAttempts: 0 })).toThrow(/maxAttempts/)
    expect(() => RetryPolicy.make({ jitter: 0.6 })).toThrow(/jitter/)
    expect(() => RetryPolicy.make({ baseDelayMillis: -1 })).toThrow(/baseDelayMillis/)
    expect(RetryPolicy.make()).toEqual(RetryPolicy.defaults)
  })
})
