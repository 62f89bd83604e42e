import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer, Option, TestClock } from "effect"
import * as fc from "effect/FastCheck"
import * as AccessConfig from "../src/AccessConfig.js"
import * as ApiKeyAuth from "../src/ApiKeyAuth.js"
import * as KeyAdministration from "../src/KeyAdministration.js"
import * as PlanRateLimiter from "../src/PlanRateLimiter.js"
import type { RateLimitState } from "../src/RateLimitStore.js"
import * as ModelApiKeyStore from "./internal/ModelApiKeyStore.js"
import * as ModelRateLimitStore from "./internal/ModelRateLimitStore.js"

const minuteMs = 60_000
const dayMs = 86_400_000

const testLayer = Layer.mergeAll(KeyAdministration.layer, PlanRateLimiter.layer, ApiKeyAuth.layer).pipe(
  Layer.provide(Layer.mergeAll(ModelRateLimitStore.layer, ModelApiKeyStore.layer, AccessConfig.layer({ banAfter: 2, banSeconds: 600 })))
)

const someKey = Effect.flatMap(KeyAdministration.KeyAdministration, (admin) => admin.issue({ plan: "enterprise", limits: { perMinute: 2, perDay: 3 } }))

describe("KeyAdministration", () => {
  it.effect("shows the usage the limiter counted, a ban while it lasts, and lifts it", () =>
    Effect.gen(function*() {
      const admin = yield* KeyAdministration.KeyAdministration
      const limiter = yield* PlanRateLimiter.PlanRateLimiter
      yield* TestClock.setTime(10 * dayMs + 30 * minuteMs + 5_000)
      const { key, status } = yield* someKey
      expect(status).toEqual({ key, state: "active", bannedUntil: Option.none(), usage: { minute: 0, day: 0 } })
      const principal = { keyId: key.id, plan: key.plan, limits: key.limits, environment: key.environment }
      const check = limiter.check({ _tag: "Key", principal })
      yield* check
      yield* check
      expect((yield* admin.show(key.id)).usage).toEqual({ minute: 2, day: 2 })
      // the next minute's window is empty; the day's goes on
      yield* TestClock.adjust(minuteMs)
      expect((yield* admin.show(key.id)).usage).toEqual({ minute: 0, day: 2 })
      yield* check
      // day full: refusals 1 and 2 are rate_limited, 3 starts the ban
      for (let i = 0; i < 3; i++) yield* check
      const banned = yield* admin.show(key.id)
      const now = 10 * dayMs + 31 * minuteMs + 5_000
      expect(banned.state).toBe("banned")
      expect(banned.bannedUntil).toEqual(Option.some(new Date(now + 600_000)))
      expect((yield* admin.list).map((s) => s.state)).toEqual(["banned"])

      const unbanned = yield* admin.unban(key.id)
      expect(unbanned.lifted).toBe(true)
      expect(unbanned.status).toEqual({ key, state: "active", bannedUntil: Option.none(), usage: { minute: 1, day: 3 } })
      expect((yield* admin.unban(key.id)).lifted).toBe(false)
      // lifted, the key is refused by its full day (rate_limited, numbered from 1 again), not banned
      expect((yield* check).outcome).toBe("RateLimited")

      // the next day counts from 0
      yield* TestClock.adjust(dayMs)
      expect((yield* admin.show(key.id)).usage).toEqual({ minute: 0, day: 0 })

      const revoked = yield* admin.revoke(key.id)
      expect(revoked.state).toBe("revoked")
      expect(revoked.key.revokedAt).toEqual(Option.some(new Date(now + dayMs)))
    }).pipe(Effect.provide(testLayer)))

  it.effect("an unknown id is ApiKeyNotFound for show, revoke and unban", () =>
    Effect.gen(function*() {
      const admin = yield* KeyAdministration.KeyAdministration
      yield* someKey
      for (const action of [admin.show, admin.revoke, (id: string) => Effect.map(admin.unban(id), ({ status }) => status)]) {
        const error = yield* Effect.flip(action("key_nope"))
        expect(error).toEqual(new KeyAdministration.ApiKeyNotFound({ id: "key_nope" }))
        expect(error.message).toBe("no key with id \"key_nope\"")
      }
    }).pipe(Effect.provide(testLayer)))

  it.effect("refuses enterprise limits with fewer requests a day than a minute", () =>
    Effect.gen(function*() {
      const admin = yield* KeyAdministration.KeyAdministration
      const error = yield* Effect.flip(admin.issue({ plan: "enterprise", limits: { perMinute: 10, perDay: 5 } }))
      expect(error._tag).toBe("InvalidRequest")
      expect(error.message).toBe("Invalid key options: limits.perDay must be at least limits.perMinute (10)")
      expect(yield* admin.list).toEqual([])
      const equal = yield* admin.issue({ plan: "enterprise", limits: { perMinute: 7, perDay: 7 } })
      expect(equal.key.limits).toEqual({ perMinute: 7, perDay: 7 })
    }).pipe(Effect.provide(testLayer)))

  it.prop(
    "statusOf counts a window only while it is the current one (or a later one)",
    {
      now: fc.integer({ min: dayMs, max: 4_102_444_800_000 }),
      minuteOffset: fc.integer({ min: -3, max: 1 }),
      dayOffset: fc.integer({ min: -2, max: 1 }),
      bannedFor: fc.integer({ min: -5_000, max: 5_000 })
    },
    ({ bannedFor, dayOffset, minuteOffset, now }) => {
      const state: RateLimitState = {
        minuteStart: (Math.floor(now / minuteMs) + minuteOffset) * minuteMs,
        minuteCount: 4,
        dayStart: (Math.floor(now / dayMs) + dayOffset) * dayMs,
        dayCount: 9,
        refusedCount: 1,
        bannedUntil: bannedFor === 0 ? 0 : now + bannedFor,
        previousMinuteCount: 3
      }
      const key = { revokedAt: Option.none(), expiresAt: Option.none() } as never
      const status = KeyAdministration.statusOf(key, state, now)
      expect(status.usage).toEqual({ minute: minuteOffset >= 0 ? 4 : 0, day: dayOffset >= 0 ? 9 : 0 })
      expect(status.state).toBe(bannedFor > 0 ? "banned" : "active")
      expect(KeyAdministration.statusOf(key, undefined, now).usage).toEqual({ minute: 0, day: 0 })
      // A ban ends at its instant.
      expect(KeyAdministration.statusOf(key, { ...state, bannedUntil: now }, now).state).toBe("active")
      expect(KeyAdministration.statusOf(key, { ...state, bannedUntil: now + 1 }, now).state).toBe("banned")
    }
  )
})
