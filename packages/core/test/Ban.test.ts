import { describe, expect, it } from "@effect/vitest"
import { Clock, Effect, Layer, TestClock } from "effect"
import * as fc from "effect/FastCheck"
import * as AccessConfig from "../src/AccessConfig.js"
import type { Principal } from "../src/ApiKey.js"
import type { PlanLimits } from "../src/Plan.js"
import type { RateLimitSubject } from "../src/PlanRateLimiter.js"
import * as PlanRateLimiter from "../src/PlanRateLimiter.js"
import type { RateLimitState } from "../src/RateLimitStore.js"
import type { RateLimitRules } from "../src/internal/rateLimit.js"
import { decide } from "../src/internal/rateLimit.js"
import * as ModelRateLimitStore from "./internal/ModelRateLimitStore.js"

const minuteMs = 60_000
const dayMs = 86_400_000

const limiterLayer = (settings: Partial<AccessConfig.AccessSettings>) =>
  PlanRateLimiter.layer.pipe(Layer.provide(Layer.merge(ModelRateLimitStore.layer, AccessConfig.layer(settings))))

const key = (limits: PlanLimits, keyId: string): RateLimitSubject => {
  const principal: Principal = { keyId, plan: "enterprise", limits, environment: "production" }
  return { _tag: "Key", principal }
}

/** An instant in the first half of a UTC day, so that a ban of at most an hour ends the same day. */
const morning = fc.record({ day: fc.integer({ min: 0, max: 47_000 }), offset: fc.integer({ min: 0, max: dayMs / 2 }) })
  .map(({ day, offset }) => day * dayMs + offset)

/** Any instant, to the millisecond. */
const anyInstant = fc.integer({ min: 0, max: 4_102_444_800_000 })

/** A pause of a client: within a second, a minute, or up to two days. */
const gap = fc.oneof(
  fc.integer({ min: 1, max: 1_000 }),
  fc.integer({ min: 1, max: minuteMs }),
  fc.integer({ min: 1, max: 2 * dayMs })
)

const policy = fc.record({
  banAfter: fc.integer({ min: 1, max: 12 }),
  banSeconds: fc.integer({ min: 60, max: 3_600 })
})

describe("ban", () => {
  it.effect.prop(
    "starts exactly at refused request banAfter + 1, ends exactly banSeconds later, and its numbering restarts after an acceptance",
    { policy, perMinute: fc.integer({ min: 1, max: 5 }), start: morning },
    ({ perMinute, policy: { banAfter, banSeconds }, start }) =>
      Effect.gen(function*() {
        const limiter = yield* PlanRateLimiter.PlanRateLimiter
        const check = limiter.check(key({ perMinute, perDay: 1_000 }, "key_a"))
        yield* TestClock.setTime(start)
        for (let i = 0; i < perMinute; i++) expect((yield* check).outcome).toBe("Accepted")

        for (let round = 0; round < 2; round++) {
          const now = yield* Clock.currentTimeMillis
          const untilNextMinute = Math.ceil((Math.floor(now / minuteMs) * minuteMs + minuteMs - now) / 1000)
          for (let n = 1; n <= banAfter; n++) {
            const refused = yield* check
            expect([refused.outcome, refused.retryAfter]).toEqual(["RateLimited", untilNextMinute])
          }
          const banned = yield* check
          expect([banned.outcome, banned.retryAfter]).toEqual(["Banned", banSeconds])
          // the headers agree with Retry-After: nothing left until the ban ends
          const banEnd = Math.ceil((now + banSeconds * 1000) / 1000)
          expect(banned.reported).toMatchObject({ remaining: 0, reset: banEnd })
          expect(banned.windows.map((w) => [w.remaining, w.reset])).toEqual([[0, banEnd], [0, banEnd]])

          yield* TestClock.setTime(now + banSeconds * 1000 - 1)
          const last = yield* check
          expect([last.outcome, last.retryAfter]).toEqual(["Banned", 1])
          expect(last.reported).toMatchObject({ remaining: 0, reset: banEnd })

          yield* TestClock.setTime(now + banSeconds * 1000)
          const after = yield* check
          expect(after.outcome).toBe("Accepted")
          expect(after.windows.map((w) => w.remaining)).toEqual([
            perMinute - 1,
            1_000 - (round + 1) * perMinute - 1
          ])
          for (let i = 1; i < perMinute; i++) expect((yield* check).outcome).toBe("Accepted")
        }
      }).pipe(Effect.provide(limiterLayer({ banAfter, banSeconds }))),
    { fastCheck: { numRuns: 40 } }
  )

  it.effect.prop(
    "while banned every request is api_key_banned with Retry-After until the ban ends, and counts nowhere",
    {
      policy,
      probes: fc.array(fc.integer({ min: 0, max: 3_600_000 }), { maxLength: 8 }),
      start: morning
    },
    ({ policy: { banAfter, banSeconds }, probes, start }) =>
      Effect.gen(function*() {
        const limiter = yield* PlanRateLimiter.PlanRateLimiter
        const check = limiter.check(key({ perMinute: 1, perDay: 1_000 }, "key_a"))
        yield* TestClock.setTime(start)
        yield* check
        for (let n = 1; n <= banAfter; n++) yield* check
        expect((yield* check).outcome).toBe("Banned")
        const banEnd = start + banSeconds * 1000
        for (const probe of probes.map((p) => p % (banSeconds * 1000)).sort((a, b) => a - b)) {
          yield* TestClock.setTime(start + probe)
          const decision = yield* check
          expect(decision.outcome).toBe("Banned")
          expect(decision.retryAfter).toBe(Math.ceil((banEnd - start - probe) / 1000))
        }
        yield* TestClock.setTime(banEnd)
        const accepted = yield* check
        expect(accepted.outcome).toBe("Accepted")
        expect(accepted.windows[1]!.remaining).toBe(1_000 - 2)
      }).pipe(Effect.provide(limiterLayer({ banAfter, banSeconds }))),
    { fastCheck: { numRuns: 40 } }
  )

  it.effect("a ban lasts until the full window resets, and refusals after its end count from 1 again", () =>
    Effect.gen(function*() {
      const limiter = yield* PlanRateLimiter.PlanRateLimiter
      const check = limiter.check(key({ perMinute: 2, perDay: 2 }, "key_a"))
      const start = Date.UTC(2026, 5, 1, 1, 0, 0)
      const untilTomorrow = 23 * 3600
      yield* TestClock.setTime(start)
      expect((yield* check).outcome).toBe("Accepted")
      expect((yield* check).outcome).toBe("Accepted")
      for (let n = 1; n <= 3; n++) {
        const refused = yield* check
        expect([refused.outcome, refused.retryAfter]).toEqual(["RateLimited", untilTomorrow])
      }
      // the day window accepts nothing before tomorrow: the ban's Retry-After says so
      const banned = yield* check
      expect([banned.outcome, banned.retryAfter]).toEqual(["Banned", untilTomorrow])
      expect(banned.reported).toMatchObject({ remaining: 0, reset: Date.UTC(2026, 5, 2) / 1000 })
      yield* TestClock.setTime(start + 60_000)
      const still = yield* check
      expect([still.outcome, still.retryAfter]).toEqual(["Banned", untilTomorrow - 60])
      // the ban of 120 s is over but the day is still full: refused, numbered from 1
      yield* TestClock.setTime(start + 120_000)
      for (let n = 1; n <= 3; n++) {
        const refused = yield* check
        expect([refused.outcome, refused.retryAfter]).toEqual(["RateLimited", untilTomorrow - 120])
      }
      expect((yield* check).outcome).toBe("Banned")
      yield* TestClock.setTime(Date.UTC(2026, 5, 2))
      expect((yield* check).outcome).toBe("Accepted")
    }).pipe(Effect.provide(limiterLayer({ banAfter: 3, banSeconds: 120 }))))

  it.effect.prop(
    "a client that waits each Retry-After is accepted then: never banned twice in a row",
    {
      limits: fc.record({ perMinute: fc.integer({ min: 1, max: 4 }), perDay: fc.integer({ min: 1, max: 12 }) }),
      policy: fc.record({ banAfter: fc.integer({ min: 1, max: 4 }), banSeconds: fc.integer({ min: 1, max: 7_200 }) }),
      start: anyInstant,
      script: fc.array(
        fc.oneof(
          fc.record({ _tag: fc.constant("Hammer" as const), requests: fc.integer({ min: 1, max: 12 }) }),
          fc.record({ _tag: fc.constant("Wait" as const), millis: gap }),
          fc.record({ _tag: fc.constant("Obey" as const) })
        ),
        { maxLength: 24 }
      )
    },
    ({ limits, policy, script, start }) =>
      Effect.gen(function*() {
        const limiter = yield* PlanRateLimiter.PlanRateLimiter
        const check = limiter.check(key(limits, "key_a"))
        yield* TestClock.setTime(start)
        for (const step of script) {
          if (step._tag === "Hammer") {
            for (let i = 0; i < step.requests; i++) yield* check
          } else if (step._tag === "Wait") {
            yield* TestClock.adjust(step.millis)
          } else {
            const first = yield* check
            if (first.outcome === "Accepted") continue
            yield* TestClock.adjust(first.retryAfter! * 1000)
            const again = yield* check
            expect([first.outcome, again.outcome]).toEqual([first.outcome, "Accepted"])
          }
        }
      }).pipe(Effect.provide(limiterLayer(policy))),
    { fastCheck: { numRuns: 200 } }
  )

  it.prop(
    "every refusal's Retry-After names the first whole second at which the windows and the ban allow a request",
    {
      limits: fc.record({ perMinute: fc.integer({ min: 1, max: 4 }), perDay: fc.integer({ min: 1, max: 12 }) }),
      policy: fc.record({ banAfter: fc.integer({ min: 1, max: 4 }), banSeconds: fc.integer({ min: 1, max: 7_200 }) }),
      start: anyInstant,
      gaps: fc.array(fc.oneof(fc.constant(0), gap), { maxLength: 60 })
    },
    ({ gaps, limits, policy, start }) => {
      const rules: RateLimitRules = {
        windows: [{ name: "minute", limit: limits.perMinute }, { name: "day", limit: limits.perDay }],
        ban: policy
      }
      let state: RateLimitState | undefined
      let now = start
      for (const millis of gaps) {
        now += millis
        const [decision, next] = decide(rules, now)(state)
        state = next
        if (decision.outcome === "Accepted") continue
        const retryAfter = decision.retryAfter!
        expect(retryAfter).toBeGreaterThanOrEqual(1)
        // (decided on the state after the refusal, without storing what they decide)
        expect(decide(rules, now + retryAfter * 1000)(next)[0].outcome).toBe("Accepted")
        expect(decide(rules, now + (retryAfter - 1) * 1000)(next)[0].outcome).not.toBe("Accepted")
        if (decision.outcome === "Banned") {
          // the headers agree with Retry-After (to the rounding of whole seconds)
          for (const window of [decision.reported, ...decision.windows]) {
            expect(window.remaining).toBe(0)
            expect(Math.abs(window.reset - (now / 1000 + retryAfter))).toBeLessThan(1)
          }
        }
      }
    },
    { fastCheck: { numRuns: 300 } }
  )

  it.effect.prop(
    "keys and addresses are independent: a ban or a full window of one changes nothing for another",
    { policy, start: morning, otherRequests: fc.integer({ min: 1, max: 16 }) },
    ({ otherRequests, policy: { banAfter, banSeconds }, start }) =>
      Effect.gen(function*() {
        const limiter = yield* PlanRateLimiter.PlanRateLimiter
        const limits = { perMinute: 2, perDay: 100 }
        const a = key(limits, "key_a")
        const b = key(limits, "key_b")
        const address: RateLimitSubject = { _tag: "Address", address: "key_a" }
        yield* TestClock.setTime(start)
        for (let i = 0; i < 2 + banAfter; i++) yield* limiter.check(a)
        expect((yield* limiter.check(a)).outcome).toBe("Banned")

        for (let i = 0; i < otherRequests; i++) {
          const other = yield* limiter.check(b)
          expect(other.outcome).toBe(i < 2 ? "Accepted" : i < 2 + banAfter ? "RateLimited" : "Banned")
        }
        for (let i = 0; i < 2 + banAfter + 5; i++) {
          const anonymous = yield* limiter.check(address)
          expect(anonymous.outcome).toBe(i < 3 ? "Accepted" : "RateLimited")
          expect(anonymous.windows[0]!.limit).toBe(3)
        }
        expect((yield* limiter.check(a)).outcome).toBe("Banned")
        yield* TestClock.setTime(start + banSeconds * 1000)
        expect((yield* limiter.check(a)).outcome).toBe("Accepted")
        expect((yield* limiter.check(b)).outcome).toBe("Accepted")
      }).pipe(Effect.provide(limiterLayer({ banAfter, banSeconds, anonymousPerMinute: 3 }))),
    { fastCheck: { numRuns: 30 } }
  )
})
