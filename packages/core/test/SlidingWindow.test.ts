/**
 * The sliding minute (decisions.md "Rate limits", record 0055) against a model
 * that keeps every accepted request's instant and applies the rule as written:
 * the current UTC minute's requests plus the previous minute's weighted by the
 * share of it still inside the last 60 seconds.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer, TestClock } from "effect"
import * as fc from "effect/FastCheck"
import * as AccessConfig from "../src/AccessConfig.js"
import type { PlanLimits } from "../src/Plan.js"
import { limitsByPlan } from "../src/Plan.js"
import type { RateLimitDecision, RateLimitSubject } from "../src/PlanRateLimiter.js"
import * as PlanRateLimiter from "../src/PlanRateLimiter.js"
import * as ModelRateLimitStore from "./internal/ModelRateLimitStore.js"

const M = 60_000
const D = 86_400_000

const limiterLayer = (settings: Partial<AccessConfig.AccessSettings>) =>
  PlanRateLimiter.layer.pipe(Layer.provide(Layer.merge(ModelRateLimitStore.layer, AccessConfig.layer(settings))))

const noBan = { banAfter: Number.MAX_SAFE_INTEGER }

const key = (limits: PlanLimits, window: "fixed" | "sliding" = "sliding"): RateLimitSubject => ({
  _tag: "Key",
  principal: { keyId: "key_sliding", plan: "enterprise", limits, environment: "production", window }
})

/** Small limits, reached often; the day sometimes below two minutes' worth. */
const limits: fc.Arbitrary<PlanLimits> = fc.oneof(
  fc.record({ perMinute: fc.integer({ min: 1, max: 7 }), minutes: fc.integer({ min: 1, max: 6 }) })
    .map(({ minutes, perMinute }) => ({ perMinute, perDay: perMinute * minutes })),
  fc.constant(limitsByPlan.free)
)

/** Requests after pauses: none, within a second, a minute, a few minutes, or days. */
const gaps = fc.array(
  fc.oneof(
    fc.constant(0),
    fc.integer({ min: 1, max: 1_500 }),
    fc.integer({ min: 1, max: M }),
    fc.integer({ min: 1, max: 3 * M }),
    fc.integer({ min: 1, max: 2 * D })
  ),
  { maxLength: 80 }
)

const start = fc.integer({ min: 0, max: 4_102_444_800_000 })

const floorDiv = (a: number, b: number) => Math.floor(a / b)

/** The rule as decisions.md writes it, on the instants of the accepted requests. */
class Model {
  readonly accepted: Array<number> = []
  constructor(readonly limits: PlanLimits) {}

  private countIn(from: number, to: number): number {
    return this.accepted.filter((t) => t >= from && t < to).length
  }

  /** Whether `k` more requests at `now` fit both windows. */
  allows(now: number, k: number): boolean {
    const minute = floorDiv(now, M) * M
    const day = floorDiv(now, D) * D
    const current = this.countIn(minute, now + 1)
    const previous = this.countIn(minute - M, minute)
    const share = (M - (now - minute)) / M
    return current + k + previous * share <= this.limits.perMinute + 1e-9 &&
      this.countIn(day, now + 1) + k <= this.limits.perDay
  }

  /** How many more requests the minute alone allows at `now`. */
  minuteRoom(now: number): number {
    let k = 0
    while (k <= this.limits.perMinute && this.minuteAllows(now, k + 1)) k++
    return k
  }

  minuteAllows(now: number, k: number): boolean {
    const minute = floorDiv(now, M) * M
    const previous = this.countIn(minute - M, minute)
    return this.countIn(minute, now + 1) + k + previous * (M - (now - minute)) / M <= this.limits.perMinute + 1e-9
  }
}

const minuteOf = (decision: RateLimitDecision) => decision.windows.find((w) => w.name === "minute")!
const dayOf = (decision: RateLimitDecision) => decision.windows.find((w) => w.name === "day")!

/**
 * The bound record 0055 states: requests accepted from `from` to `to` (less
 * than a minute apart) number at most the limit within one UTC minute, and
 * across a boundary `B` at most `limit + floor(limit * (to - B) / 60000)`.
 */
const spanBound = (limit: number, from: number, to: number): number => {
  const boundary = floorDiv(to, M) * M
  return from >= boundary ? limit : limit + floorDiv(limit * (to - boundary), M)
}

describe("sliding minute", () => {
  it.effect.prop(
    "accepts exactly what the rule allows; Remaining, Reset and Retry-After are the rule's; within the bound in every span under a minute",
    { limits, gaps, start },
    ({ gaps, limits, start }) =>
      Effect.gen(function*() {
        const limiter = yield* PlanRateLimiter.PlanRateLimiter
        const model = new Model(limits)
        let now = start
        for (const gap of gaps) {
          now += gap
          yield* TestClock.setTime(now)
          const decision = yield* limiter.check(key(limits))
          const accepted = model.allows(now, 1)
          // Never a refusal the rule does not require, never an acceptance it forbids.
          expect(decision.outcome).toBe(accepted ? "Accepted" : "RateLimited")
          if (accepted) model.accepted.push(now)

          const minute = minuteOf(decision)
          expect(minute.remaining).toBe(model.minuteRoom(now))
          // Reset: the first whole second from which more than Remaining may be sent at once.
          const more = minute.remaining + 1
          if (more <= limits.perMinute) {
            expect(model.minuteAllows(minute.reset * 1000, more)).toBe(true)
            expect(model.minuteAllows(now, more)).toBe(false)
            const earlier = minute.reset * 1000 - 1000
            expect(earlier < now || !model.minuteAllows(earlier, more)).toBe(true)
          }
          const day = dayOf(decision)
          expect(day.remaining).toBe(Math.max(0, limits.perDay - model.accepted.filter((t) => t >= floorDiv(now, D) * D).length))
          expect(day.reset).toBe((floorDiv(now, D) * D + D) / 1000)

          if (accepted) {
            expect(decision.retryAfter).toBeUndefined()
          } else {
            // Retry-After is enough, and a second less is not.
            const retryAfter = decision.retryAfter!
            expect(model.allows(now + retryAfter * 1000, 1)).toBe(true)
            expect(model.allows(now + retryAfter * 1000 - 1000, 1)).toBe(false)
            expect(decision.reported.remaining).toBe(0)
          }
        }
        const times = model.accepted
        for (let j = 0; j < times.length; j++) {
          for (let i = j; i >= 0 && times[j]! - times[i]! < M; i--) {
            expect(j - i + 1).toBeLessThanOrEqual(spanBound(limits.perMinute, times[i]!, times[j]!))
          }
        }
      }).pipe(Effect.provide(limiterLayer(noBan))),
    { fastCheck: { numRuns: 100 } }
  )

  it.effect.prop(
    "a client that sends whenever the headers allow gets at most 2 x limit - 1 in any 60 s, and at most the limit when it starts at a minute's start",
    {
      limits,
      offset: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: M - 1 })),
      minute: fc.integer({ min: 0, max: 60_000_000 })
    },
    ({ limits, minute, offset }) =>
      Effect.gen(function*() {
        const limiter = yield* PlanRateLimiter.PlanRateLimiter
        let now = minute * M + offset
        const accepted: Array<number> = []
        while (now < minute * M + offset + 3 * M) {
          yield* TestClock.setTime(now)
          const decision = yield* limiter.check(key(limits))
          if (decision.outcome === "Accepted") {
            accepted.push(now)
            // Remaining 0: wait until Reset, as a client reading the headers does.
            if (decision.reported.remaining === 0) now = Math.max(now, decision.reported.reset * 1000)
          } else {
            expect(decision.outcome).toBe("RateLimited")
            now += decision.retryAfter! * 1000
          }
        }
        let most = 0
        for (let j = 0, i = 0; j < accepted.length; j++) {
          while (accepted[j]! - accepted[i]! >= M) i++
          most = Math.max(most, j - i + 1)
        }
        expect(most).toBeLessThanOrEqual(offset === 0 && limits.perDay >= 5 * limits.perMinute ? limits.perMinute : 2 * limits.perMinute - 1)
      }).pipe(Effect.provide(limiterLayer(noBan))),
    { fastCheck: { numRuns: 30 } }
  )

  it.effect("the boundary burst: a free key's full minute at 12:00:59 leaves about one request at 12:01:00, not 60", () =>
    Effect.gen(function*() {
      const limiter = yield* PlanRateLimiter.PlanRateLimiter
      const boundary = Date.UTC(2026, 2, 1, 12, 1)
      yield* TestClock.setTime(boundary - 1_000)
      for (let i = 0; i < 60; i++) expect((yield* limiter.check(key(limitsByPlan.free))).outcome).toBe("Accepted")
      const refused = yield* limiter.check(key(limitsByPlan.free))
      expect(refused.outcome).toBe("RateLimited")
      // At 12:01:01 the previous minute still weighs 59/60 of 60: one more fits.
      expect(refused.retryAfter).toBe(2)
      expect(refused.reported).toMatchObject({ name: "minute", remaining: 0, reset: boundary / 1000 + 1 })
      yield* TestClock.setTime(boundary + 999)
      expect((yield* limiter.check(key(limitsByPlan.free))).outcome).toBe("RateLimited")
      yield* TestClock.setTime(boundary + 1_000)
      const accepted = yield* limiter.check(key(limitsByPlan.free))
      expect(accepted.outcome).toBe("Accepted")
      expect(minuteOf(accepted).remaining).toBe(0)
      // Within 2 s across the boundary at most 60 + floor(60 * 1999 / 60000) = 61.
      yield* TestClock.setTime(boundary + 1_999)
      expect((yield* limiter.check(key(limitsByPlan.free))).outcome).toBe("RateLimited")
    }).pipe(Effect.provide(limiterLayer(noBan))))

  it.effect("a fixed key in the same pattern gets its whole minute again at 12:01:00", () =>
    Effect.gen(function*() {
      const limiter = yield* PlanRateLimiter.PlanRateLimiter
      const boundary = Date.UTC(2026, 2, 1, 12, 1)
      yield* TestClock.setTime(boundary - 1_000)
      for (let i = 0; i < 60; i++) yield* limiter.check(key(limitsByPlan.free, "fixed"))
      yield* TestClock.setTime(boundary)
      const decisions = yield* Effect.forEach(Array.from({ length: 61 }), () => limiter.check(key(limitsByPlan.free, "fixed")))
      expect(decisions.filter((d) => d.outcome === "Accepted")).toHaveLength(60)
    }).pipe(Effect.provide(limiterLayer(noBan))))

  it.effect.prop(
    "bans as decisions.md says: refusal banAfter + 1 starts a ban; its Retry-After is the later of its end and the sliding minute's next acceptance; a client that waits each Retry-After is never banned",
    {
      limits,
      policy: fc.record({ banAfter: fc.integer({ min: 1, max: 6 }), banSeconds: fc.integer({ min: 1, max: 120 }) }),
      start,
      waits: fc.array(fc.boolean(), { minLength: 1, maxLength: 60 })
    },
    ({ limits, policy, start, waits }) =>
      Effect.gen(function*() {
        const limiter = yield* PlanRateLimiter.PlanRateLimiter
        const model = new Model(limits)
        let now = start
        let refusals = 0
        let bannedUntil = 0
        for (const wait of waits) {
          yield* TestClock.setTime(now)
          const decision = yield* limiter.check(key(limits))
          if (now < bannedUntil) {
            expect(decision.outcome).toBe("Banned")
          } else if (model.allows(now, 1)) {
            expect(decision.outcome).toBe("Accepted")
            model.accepted.push(now)
            refusals = 0
          } else {
            refusals++
            if (refusals > policy.banAfter) {
              expect(decision.outcome).toBe("Banned")
              bannedUntil = now + policy.banSeconds * 1000
              refusals = 0
            } else {
              expect(decision.outcome).toBe("RateLimited")
            }
          }
          if (decision.outcome === "Banned") {
            const retryAfter = decision.retryAfter!
            const until = now + retryAfter * 1000
            expect(until).toBeGreaterThanOrEqual(bannedUntil)
            expect(model.allows(until, 1)).toBe(true)
            // Not more than needed: a second less is inside the ban or refused by the window.
            expect(until - 1000 < bannedUntil || !model.allows(until - 1000, 1)).toBe(true)
            // The headers agree with Retry-After.
            for (const window of decision.windows) {
              expect(window.remaining).toBe(0)
              expect(window.reset * 1000).toBeGreaterThan(until - 1000)
              expect(window.reset * 1000).toBeLessThan(until + 1000)
            }
          }
          // A waiting client sleeps its Retry-After; an impatient one comes back at once.
          now += wait && decision.retryAfter !== undefined ? decision.retryAfter * 1000 : wait ? 0 : 1
        }
      }).pipe(Effect.provide(limiterLayer(policy))),
    { fastCheck: { numRuns: 100 } }
  )

  it.effect.prop(
    "a client that waits each Retry-After is never banned",
    { limits, banAfter: fc.integer({ min: 1, max: 3 }), start, requests: fc.integer({ min: 1, max: 90 }) },
    ({ banAfter, limits, requests, start }) =>
      Effect.gen(function*() {
        const limiter = yield* PlanRateLimiter.PlanRateLimiter
        let now = start
        for (let i = 0; i < requests; i++) {
          yield* TestClock.setTime(now)
          const decision = yield* limiter.check(key(limits))
          expect(decision.outcome).not.toBe("Banned")
          now += (decision.retryAfter ?? 0) * 1000
        }
      }).pipe(Effect.provide(limiterLayer({ banAfter, banSeconds: 600 }))),
    { fastCheck: { numRuns: 30 } }
  )
})
