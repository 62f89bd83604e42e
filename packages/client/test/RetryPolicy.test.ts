import { describe, expect, it } from "@effect/vitest"
import { Chunk, Clock, Duration, Effect, FastCheck as fc, Fiber, Schedule, TestClock, TestContext } from "effect"
import * as RetryPolicy from "../src/RetryPolicy.js"

const policies = fc.record({
  maxAttempts: fc.integer({ min: 1, max: 20 }),
  baseDelayMillis: fc.integer({ min: 0, max: 5_000 }),
  maxDelayMillis: fc.integer({ min: 0, max: 120_000 }),
  jitter: fc.double({ min: 0, max: 0.5, noNaN: true })
}).map(RetryPolicy.make)

/** The waits of the schedule of `policy` after each of the refusals (the step that stops it, past maxAttempts, left out). */
const waits = (policy: RetryPolicy.RetryPolicy, retryAfters: ReadonlyArray<number>): Array<number> =>
  Chunk.toArray(Effect.runSync(
    Schedule.run(Schedule.delays(RetryPolicy.schedule(policy)), 0, retryAfters.map((retryAfterMillis) => ({ retryAfterMillis })))
  )).map(Duration.toMillis).slice(0, policy.maxAttempts - 1)

/** The times `Effect.retry` on the schedule of `policy` sends an attempt that is always refused, by the test clock. */
const attemptTimes = (policy: RetryPolicy.RetryPolicy, retryAfterMillis: number) =>
  Effect.gen(function*() {
    const sentAt: Array<number> = []
    const attempt = Effect.flatMap(Clock.currentTimeMillis, (now) => {
      sentAt.push(now)
      return Effect.fail<RetryPolicy.Refusal>({ retryAfterMillis })
    })
    const fiber = yield* Effect.fork(Effect.retry(attempt, RetryPolicy.schedule(policy)))
    yield* TestClock.adjust(Duration.days(1))
    expect(yield* Effect.flip(Fiber.join(fiber))).toEqual({ retryAfterMillis })
    return sentAt
  })

/** The backoff of retry `n` (1 for the first) before jitter: `base * 2^(n-1)`, capped. */
const backoff = (policy: RetryPolicy.RetryPolicy, n: number) => Math.min(policy.maxDelayMillis, policy.baseDelayMillis * 2 ** (n - 1))

describe("RetryPolicy", () => {
  it("never retries before Retry-After, and backs off exponentially, capped, less at most the jitter's share", () =>
    fc.assert(fc.property(policies, fc.array(fc.nat(3_600_000), { maxLength: 25 }), (policy, retryAfters) => {
      const waited = waits(policy, retryAfters)
      expect(waited).toHaveLength(Math.min(retryAfters.length, policy.maxAttempts - 1))
      waited.forEach((wait, i) => {
        const after = retryAfters[i]!
        expect(wait).toBeGreaterThanOrEqual(after)
        expect(wait - after).toBeLessThanOrEqual(backoff(policy, i + 1) + 1e-6)
        expect(wait - after).toBeGreaterThanOrEqual(backoff(policy, i + 1) * (1 - policy.jitter) - 1e-6)
      })
    })))

  it("a later retry never waits less than an earlier one, until the cap", () =>
    fc.assert(fc.property(policies, (policy) => {
      const waited = waits(policy, Array.from({ length: 25 }, () => 0))
      waited.slice(1).forEach((wait, i) => {
        if (backoff(policy, i + 2) < policy.maxDelayMillis) expect(wait).toBeGreaterThanOrEqual(waited[i]! - 1e-6)
      })
    })))

  it.effect("sends maxAttempts attempts in all, each after the Retry-After and the backoff, by the clock", () =>
    Effect.gen(function*() {
      const policy = RetryPolicy.make({ maxAttempts: 4, baseDelayMillis: 100, maxDelayMillis: 250, jitter: 0.5 })
      const sentAt = yield* attemptTimes(policy, 1_000)
      expect(sentAt).toHaveLength(4)
      const gaps = sentAt.slice(1).map((at, i) => at - sentAt[i]! - 1_000)
      ;[100, 200, 250].forEach((full, i) => {
        expect(gaps[i]).toBeGreaterThanOrEqual(full / 2)
        expect(gaps[i]).toBeLessThanOrEqual(full)
      })
    }))

  it("allows maxAttempts attempts in all", () =>
    fc.assert(fc.asyncProperty(policies, fc.nat(60_000), (policy, retryAfter) =>
      Effect.runPromise(Effect.provide(attemptTimes(policy, retryAfter), TestContext.TestContext)).then((sentAt) => {
        expect(sentAt).toHaveLength(policy.maxAttempts)
      })), { numRuns: 30 }))

  it("refuses settings out of range", () => {
    expect(() => RetryPolicy.make({ maxAttempts: 0 })).toThrow(/maxAttempts/)
    expect(() => RetryPolicy.make({ jitter: 0.6 })).toThrow(/jitter/)
    expect(() => RetryPolicy.make({ baseDelayMillis: -1 })).toThrow(/baseDelayMillis/)
    expect(RetryPolicy.make()).toEqual(RetryPolicy.defaults)
  })
})
