import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer, TestClock } from "effect"
import * as fc from "effect/FastCheck"
import * as AccessConfig from "../src/AccessConfig.js"
import type { Principal } from "../src/ApiKey.js"
import type { PlanLimits } from "../src/Plan.js"
import { limitsByPlan } from "../src/Plan.js"
import type { RateLimitDecision, RateLimitWindow } from "../src/PlanRateLimiter.js"
import * as PlanRateLimiter from "../src/PlanRateLimiter.js"
import * as ModelRateLimitStore from "./internal/ModelRateLimitStore.js"

const minuteMs = 60_000
const dayMs = 86_400_000
const noBan = { banAfter: Number.MAX_SAFE_INTEGER }

const limiterLayer = (settings: Partial<AccessConfig.AccessSettings>) =>
  PlanRateLimiter.layer.pipe(Layer.provide(Layer.merge(ModelRateLimitStore.layer, AccessConfig.layer(settings))))

const principal = (limits: PlanLimits, keyId = "key_test"): Principal => ({
  keyId,
  plan: "enterprise",
  limits,
  environment: "production"
})

/** Small limits, often with the day a multiple of the minute, so that both windows fill at once. */
const enterpriseLimits: fc.Arbitrary<PlanLimits> = fc.record({
  perMinute: fc.integer({ min: 1, max: 8 }),
  minutes: fc.integer({ min: 1, max: 5 }),
  extra: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 10 }))
}).map(({ extra, minutes, perMinute }) => ({ perMinute, perDay: perMinute * minutes + extra }))

/** Any plan: the fixed ones, and enterprise with small limits that are reached often. */
const plan: fc.Arbitrary<PlanLimits> = fc.oneof(
  fc.constantFrom(limitsByPlan.free, limitsByPlan.pro, limitsByPlan.business),
  enterpriseLimits
)

/** Bursts of requests at one instant, each after a gap: same minute, next minutes, next days. */
const bursts = fc.array(
  fc.record({
    gap: fc.oneof(
      fc.constant(0),
      fc.integer({ min: 0, max: 3_000 }),
      fc.integer({ min: 0, max: 3 * minuteMs }),
      fc.integer({ min: 0, max: 2 * dayMs })
    ),
    size: fc.double({ min: 0, max: 1.3, noNaN: true })
  }),
  { maxLength: 25 }
)

const start = fc.integer({ min: 0, max: 4_102_444_800_000 })

const windowStart = (now: number, length: number) => Math.floor(now / length) * length

/** The reported window is the one with the fewest remaining; on a tie, the later reset. */
const expectReported = (decision: RateLimitDecision) => {
  const fewest = Math.min(...decision.windows.map((w) => w.remaining))
  const latest = Math.max(...decision.windows.filter((w) => w.remaining === fewest).map((w) => w.reset))
  expect(decision.windows).toContainEqual(decision.reported)
  expect(decision.reported.remaining).toBe(fewest)
  expect(decision.reported.reset).toBe(latest)
}

const byName = (decision: RateLimitDecision, name: RateLimitWindow["name"]) =>
  decision.windows.find((window) => window.name === name)!

describe("PlanRateLimiter", () => {
  it.effect.prop(
    "in every UTC minute and day at most the limit is accepted; refused iff a window is full; exact remaining and reset",
    { limits: plan, bursts, start },
    ({ bursts, limits, start }) =>
      Effect.gen(function*() {
        const limiter = yield* PlanRateLimiter.PlanRateLimiter
        const subject = { _tag: "Key", principal: principal(limits) } as const
        const perMinute = new Map<number, number>()
        const perDay = new Map<number, number>()
        let now = start
        yield* TestClock.setTime(now)
        for (const { gap, size } of bursts) {
          if (gap > 0) {
            now += gap
            yield* TestClock.setTime(now)
          }
          const minute = windowStart(now, minuteMs)
          const day = windowStart(now, dayMs)
          for (let i = 0; i < Math.max(1, Math.ceil(size * limits.perMinute)); i++) {
            const decision = yield* limiter.check(subject)
            const minuteCount = perMinute.get(minute) ?? 0
            const dayCount = perDay.get(day) ?? 0
            const minuteFull = minuteCount >= limits.perMinute
            const dayFull = dayCount >= limits.perDay
            const accepted = !minuteFull && !dayFull
            expect(decision.outcome).toBe(accepted ? "Accepted" : "RateLimited")
            const counted = accepted ? 1 : 0
            if (accepted) {
              perMinute.set(minute, minuteCount + 1)
              perDay.set(day, dayCount + 1)
            }
            expect(decision.windows).toEqual([
              {
                name: "minute",
                seconds: 60,
                limit: limits.perMinute,
                remaining: limits.perMinute - minuteCount - counted,
                reset: (minute + minuteMs) / 1000
              },
              {
                name: "day",
                seconds: 86_400,
                limit: limits.perDay,
                remaining: limits.perDay - dayCount - counted,
                reset: (day + dayMs) / 1000
              }
            ])
            expectReported(decision)
            if (accepted) {
              expect(decision.retryAfter).toBeUndefined()
            } else {
              const until = Math.max(...[minuteFull ? minute + minuteMs : 0, dayFull ? day + dayMs : 0])
              expect(decision.retryAfter).toBe(Math.ceil((until - now) / 1000))
            }
          }
        }
        for (const count of perMinute.values()) expect(count).toBeLessThanOrEqual(limits.perMinute)
        for (const count of perDay.values()) expect(count).toBeLessThanOrEqual(limits.perDay)
      }).pipe(Effect.provide(limiterLayer(noBan))),
    { fastCheck: { numRuns: 60 } }
  )

  it.effect.prop(
    "on refusal, retryAfter - 1 seconds later it still refuses and retryAfter seconds later it accepts; refusals consume nothing",
    {
      limits: enterpriseLimits,
      gaps: fc.array(fc.integer({ min: 0, max: 40 * minuteMs }), { maxLength: 12 }),
      start
    },
    ({ gaps, limits, start }) =>
      Effect.gen(function*() {
        const limiter = yield* PlanRateLimiter.PlanRateLimiter
        const check = limiter.check({ _tag: "Key", principal: principal(limits) })
        yield* TestClock.setTime(start)
        for (const gap of gaps) {
          yield* TestClock.adjust(gap)
          for (let i = 0; i < limits.perMinute; i++) yield* check
        }
        let refused = yield* check
        for (let accepted = 1; refused.outcome === "Accepted"; accepted++) {
          // At one instant at most a minute's worth is accepted.
          expect(accepted).toBeLessThanOrEqual(limits.perMinute)
          refused = yield* check
        }
        const retryAfter = refused.retryAfter!
        expect(retryAfter).toBeGreaterThanOrEqual(1)

        yield* TestClock.adjust((retryAfter - 1) * 1000)
        const early = yield* check
        expect(early.outcome).toBe("RateLimited")
        yield* TestClock.adjust(1000)
        const accepted = yield* check
        expect(accepted.outcome).toBe("Accepted")
        for (const window of accepted.windows) {
          const before = byName(refused, window.name)
          expect(window.remaining).toBe(window.reset === before.reset ? before.remaining - 1 : window.limit - 1)
        }
      }).pipe(Effect.provide(limiterLayer(noBan))),
    { fastCheck: { numRuns: 60 } }
  )

  it.effect("a burst at one instant accepts exactly the limit, then answers until the minute ends", () =>
    Effect.gen(function*() {
      const limiter = yield* PlanRateLimiter.PlanRateLimiter
      yield* TestClock.setTime(Date.UTC(2026, 2, 1, 12, 30, 15, 250))
      const decisions = yield* Effect.all(
        Array.from({ length: 70 }, () => limiter.check({ _tag: "Key", principal: principal(limitsByPlan.free) })),
        { concurrency: "unbounded" }
      )
      expect(decisions.filter((d) => d.outcome === "Accepted").length).toBe(60)
      const last = decisions[decisions.length - 1]!
      expect(last.outcome).toBe("RateLimited")
      expect(last.retryAfter).toBe(45)
      expect(last.reported).toEqual({
        name: "minute",
        seconds: 60,
        limit: 60,
        remaining: 0,
        reset: Date.UTC(2026, 2, 1, 12, 31) / 1000
      })
    }).pipe(Effect.provide(limiterLayer({}))))

  it.effect.prop(
    "an address has one minute window of anonymousPerMinute, no day window and no ban",
    {
      anonymousPerMinute: fc.integer({ min: 1, max: 20 }),
      requests: fc.integer({ min: 1, max: 80 }),
      start
    },
    ({ anonymousPerMinute, requests, start }) =>
      Effect.gen(function*() {
        const limiter = yield* PlanRateLimiter.PlanRateLimiter
        yield* TestClock.setTime(start)
        const minute = windowStart(start, minuteMs)
        for (let i = 0; i < requests; i++) {
          const decision = yield* limiter.check({ _tag: "Address", address: "192.0.2.1" })
          const accepted = i < anonymousPerMinute
          expect(decision).toEqual({
            outcome: accepted ? "Accepted" : "RateLimited",
            reported: decision.windows[0],
            windows: [{
              name: "minute",
              seconds: 60,
              limit: anonymousPerMinute,
              remaining: accepted ? anonymousPerMinute - i - 1 : 0,
              reset: (minute + minuteMs) / 1000
            }],
            retryAfter: accepted ? undefined : Math.ceil((minute + minuteMs - start) / 1000)
          })
        }
      }).pipe(Effect.provide(limiterLayer({ anonymousPerMinute, banAfter: 1, banSeconds: 900 }))),
    { fastCheck: { numRuns: 40 } }
  )

  it.effect.prop(
    "in the last minute of a UTC day, with as many left in both windows, the day window is reported with its limit",
    {
      day: fc.integer({ min: 0, max: 47_000 }),
      second: fc.integer({ min: 0, max: 59_999 }),
      perMinute: fc.integer({ min: 1, max: 12 }),
      usedEarlier: fc.nat()
    },
    ({ day, perMinute, second, usedEarlier }) =>
      Effect.gen(function*() {
        const limiter = yield* PlanRateLimiter.PlanRateLimiter
        // `earlier` requests in an earlier minute of the day leave the day window as many as the minute window.
        const earlier = usedEarlier % (perMinute + 1)
        const limits = { perMinute, perDay: perMinute + earlier }
        const check = limiter.check({ _tag: "Key", principal: principal(limits) })
        const midnight = (day + 1) * dayMs
        yield* TestClock.setTime(midnight - 2 * minuteMs)
        for (let i = 0; i < earlier; i++) yield* check
        yield* TestClock.setTime(midnight - minuteMs + second)
        for (let i = 1; i <= perMinute + 1; i++) {
          const decision = yield* check
          expect(decision.outcome).toBe(i <= perMinute ? "Accepted" : "RateLimited")
          expect(decision.reported).toEqual({
            name: "day",
            seconds: 86_400,
            limit: limits.perDay,
            remaining: Math.max(0, perMinute - i),
            reset: midnight / 1000
          })
        }
      }).pipe(Effect.provide(limiterLayer(noBan))),
    { fastCheck: { numRuns: 30 } }
  )

  it.effect("the limits of a key are those of its principal", () =>
    Effect.gen(function*() {
      const limiter = yield* PlanRateLimiter.PlanRateLimiter
      yield* TestClock.setTime(Date.UTC(2026, 0, 1, 12, 0, 30))
      const decision = yield* limiter.check({ _tag: "Key", principal: principal(limitsByPlan.pro) })
      expect(decision.windows.map((w) => [w.name, w.limit, w.remaining])).toEqual([
        ["minute", 300, 299],
        ["day", 10_000, 9_999]
      ])
      expect(decision.reported.name).toBe("minute")
      const tight = yield* limiter.check({ _tag: "Key", principal: principal({ perMinute: 5, perDay: 5 }, "key_tight") })
      expect(tight.reported).toEqual({ name: "day", seconds: 86_400, limit: 5, remaining: 4, reset: Date.UTC(2026, 0, 2) / 1000 })
    }).pipe(Effect.provide(limiterLayer({}))))
})
