/**
 * The contract of keys that expire and rotate (records 0056, 0057), run on two
 * builds of one store (two servers sharing it) under `TestClock`.
 *
 * @since 1.0.0
 */
import { describe, expect, it } from "@effect/vitest"
import type { Scope } from "effect"
import { Duration, Effect, Layer, Option, Redacted, TestClock } from "effect"
import * as AccessConfig from "../AccessConfig.js"
import type { UnauthorizedReason } from "../ApiError.js"
import type { ApiKeyStore } from "../ApiKeyStore.js"
import * as KeyAdministration from "../KeyAdministration.js"
import * as ApiKeyAuth from "../ApiKeyAuth.js"
import * as PlanRateLimiter from "../PlanRateLimiter.js"
import type { RateLimitStore } from "../RateLimitStore.js"

/** The services of one build of the store: what a server runs on it. */
const servicesOf = (layer: Layer.Layer<ApiKeyStore | RateLimitStore, unknown>) =>
  Effect.gen(function*() {
    const context = yield* Layer.build(layer)
    const config = AccessConfig.layer()
    const [auth, admin, limiter] = yield* Effect.all([ApiKeyAuth.make, KeyAdministration.make, PlanRateLimiter.make]).pipe(
      Effect.provide(context),
      Effect.provide(config)
    )
    return { auth, admin, limiter }
  })

const refusal = (auth: ApiKeyAuth.ApiKeyAuthService, secret: string) =>
  Effect.match(auth.authenticate(secret), {
    onFailure: (error): UnauthorizedReason | "store" => error._tag === "Unauthorized" ? error.reason : "store",
    onSuccess: (principal) => principal.keyId
  })

/**
 * Declares a `describe` block that checks keys' expiry and rotation on the
 * store `sameStore` makes; `propagation` is the longest a revocation or
 * rotation takes to reach another build (zero by default).
 *
 * @since 1.0.0
 * @category contracts
 */
export const testKeyLifecycle = (
  name: string,
  sameStore: Effect.Effect<Layer.Layer<ApiKeyStore | RateLimitStore, unknown>, unknown, Scope.Scope>,
  options: { readonly propagation?: Duration.DurationInput | undefined } = {}
): void => {
  const propagation = Duration.toMillis(options.propagation ?? 0)
  describe(`Key lifecycle contract (${name})`, () => {
    it.scoped("a key expires on every server at its instant, and is listed as expired", () =>
      Effect.gen(function*() {
        yield* TestClock.setTime(Date.UTC(2030, 0, 1, 12))
        const store = yield* sameStore
        const [a, b] = [yield* servicesOf(store), yield* servicesOf(store)]
        const expiresAt = new Date(Date.UTC(2030, 0, 1, 12, 30))
        const issued = yield* a.admin.issue({ plan: "free", expiresAt, window: "sliding" })
        const secret = Redacted.value(issued.secret)
        expect(issued.key.expiresAt).toEqual(Option.some(expiresAt))
        expect(issued.key.window).toBe("sliding")
        expect((yield* b.auth.authenticate(secret)).window).toBe("sliding")
        expect((yield* b.admin.show(issued.key.id)).key.expiresAt).toEqual(Option.some(expiresAt))

        yield* TestClock.setTime(expiresAt.getTime() - 1)
        expect(yield* refusal(b.auth, secret)).toBe(issued.key.id)
        expect((yield* a.admin.show(issued.key.id)).state).toBe("active")
        yield* TestClock.setTime(expiresAt.getTime())
        expect(yield* refusal(b.auth, secret)).toBe("expired")
        expect(yield* refusal(a.auth, secret)).toBe("expired")
        expect((yield* b.admin.show(issued.key.id)).state).toBe("expired")
        // A revoked key is listed as revoked, expired or not.
        yield* a.admin.revoke(issued.key.id)
        expect((yield* b.admin.show(issued.key.id)).state).toBe("revoked")
      }))

    it.scoped("an expiry not later than now is refused", () =>
      Effect.gen(function*() {
        yield* TestClock.setTime(Date.UTC(2030, 0, 1, 12))
        const { admin } = yield* servicesOf(yield* sameStore)
        const error = yield* Effect.flip(admin.issue({ plan: "free", expiresAt: new Date(Date.UTC(2030, 0, 1, 12)) }))
        expect(error._tag === "InvalidRequest" && [error.message, error.details]).toEqual([
          "Invalid key options: expiresAt must be later than now (2030-01-01T12:00:00.000Z)",
          [{ path: "expiresAt", message: "must be later than now (2030-01-01T12:00:00.000Z)" }]
        ])
        expect(yield* admin.list).toEqual([])
      }))

    it.scoped(
      "a rotated key keeps its id, plan, limits, counts and ban; its previous secret works on every server until the grace ends",
      () =>
        Effect.gen(function*() {
          yield* TestClock.setTime(Date.UTC(2030, 0, 1, 12, 0, 10))
          const store = yield* sameStore
          const [a, b] = [yield* servicesOf(store), yield* servicesOf(store)]
          const issued = yield* a.admin.issue({ plan: "enterprise", limits: { perMinute: 7, perDay: 70 } })
          const old = Redacted.value(issued.secret)
          const id = issued.key.id
          expect(yield* refusal(b.auth, old)).toBe(id)
          const principal = yield* b.auth.authenticate(old)
          expect((yield* b.limiter.check({ _tag: "Key", principal })).outcome).toBe("Accepted")

          const rotated = yield* a.admin.rotate(id, Duration.minutes(10))
          const fresh = Redacted.value(rotated.secret)
          expect(fresh).not.toBe(old)
          expect(rotated.key).toMatchObject({ id, plan: "enterprise", limits: { perMinute: 7, perDay: 70 } })
          expect(rotated.key.prefix).toBe(fresh.slice(0, 13))
          expect(rotated.key.previousSecret).toEqual(Option.some({
            digest: issued.key.digest,
            prefix: issued.key.prefix,
            until: new Date(Date.UTC(2030, 0, 1, 12, 10, 10))
          }))
          // Both secrets are the same principal: they count against the same windows.
          expect(yield* b.auth.authenticate(fresh)).toEqual(principal)
          expect(yield* b.auth.authenticate(old)).toEqual(principal)
          expect((yield* b.admin.show(id)).key.previousSecret).toEqual(rotated.key.previousSecret)
          // The counts are kept: the new secret's request is the minute's second.
          expect(rotated.status.usage).toEqual({ minute: 1, day: 1 })
          const next = yield* a.limiter.check({ _tag: "Key", principal: yield* a.auth.authenticate(fresh) })
          expect(next.reported.remaining).toBe(5)

          yield* TestClock.setTime(Date.UTC(2030, 0, 1, 12, 10, 10) - 1)
          expect(yield* refusal(b.auth, old)).toBe(id)
          yield* TestClock.setTime(Date.UTC(2030, 0, 1, 12, 10, 10))
          expect(yield* refusal(b.auth, old)).toBe("rotated")
          expect(yield* refusal(a.auth, old)).toBe("rotated")
          expect(yield* refusal(b.auth, fresh)).toBe(id)
          expect((yield* a.admin.list).map((status) => status.key.id)).toEqual([id])
        })
    )

    it.scoped("a rotation with no grace ends the previous secret, and a second rotation the first's, within the propagation delay", () =>
      Effect.gen(function*() {
        yield* TestClock.setTime(Date.UTC(2030, 0, 1, 12))
        const store = yield* sameStore
        const [a, b] = [yield* servicesOf(store), yield* servicesOf(store)]
        const issued = yield* a.admin.issue({ plan: "free" })
        const first = Redacted.value(issued.secret)
        expect(yield* refusal(b.auth, first)).toBe(issued.key.id)
        const second = Redacted.value((yield* a.admin.rotate(issued.key.id, Duration.hours(24))).secret)
        expect(yield* refusal(b.auth, second)).toBe(issued.key.id)
        const third = Redacted.value((yield* a.admin.rotate(issued.key.id, Duration.zero)).secret)
        yield* TestClock.adjust(propagation)
        expect(yield* refusal(a.auth, first)).toBe("unknown")
        expect(yield* refusal(b.auth, first)).toBe("unknown")
        expect(yield* refusal(a.auth, second)).toBe("rotated")
        expect(yield* refusal(b.auth, second)).toBe("rotated")
        expect(yield* refusal(b.auth, third)).toBe(issued.key.id)
      }))

    it.scoped("revoking a rotated key ends every secret of it; a revoked key is not rotated; an unknown one is not found", () =>
      Effect.gen(function*() {
        yield* TestClock.setTime(Date.UTC(2030, 0, 1, 12))
        const store = yield* sameStore
        const [a, b] = [yield* servicesOf(store), yield* servicesOf(store)]
        const issued = yield* a.admin.issue({ plan: "pro" })
        const old = Redacted.value(issued.secret)
        const fresh = Redacted.value((yield* a.admin.rotate(issued.key.id, Duration.hours(24))).secret)
        expect(yield* refusal(b.auth, old)).toBe(issued.key.id)
        expect(yield* refusal(b.auth, fresh)).toBe(issued.key.id)
        yield* a.admin.revoke(issued.key.id)
        yield* TestClock.adjust(propagation)
        expect(yield* refusal(b.auth, old)).toBe("revoked")
        expect(yield* refusal(b.auth, fresh)).toBe("revoked")
        const revoked = yield* Effect.flip(b.admin.rotate(issued.key.id, Duration.zero))
        expect(revoked._tag === "InvalidRequest" && revoked.details).toEqual([
          { path: "id", message: `${issued.key.id} is revoked: a revoked key cannot be rotated` }
        ])
        expect(revoked.message).toBe(`Invalid key: id ${issued.key.id} is revoked: a revoked key cannot be rotated`)
        expect((yield* Effect.flip(b.admin.rotate("key_unknown", Duration.zero)))._tag).toBe("ApiKeyNotFound")
      }))
  })
}
