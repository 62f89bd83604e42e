/**
 * What the store keeps between requests, as two processes on one database
 * meet it (two stores, each on a pool of its own, on one schema): a row
 * changed by the other is read before it is counted on, and a key
 * revoked by the other is refused at once by a store that listens, and by
 * any store once `keyCacheTtl` has passed.
 */
import { ApiKey, ApiKeyStore, Plan, RateLimitStore } from "@animal-store/core"
import { describe, expect, it } from "@effect/vitest"
import { Context, Duration, Effect, Layer, Option, TestClock } from "effect"
import { PostgresApiKeyStore, PostgresStore } from "../src/index.js"
import { freshSchema, useCluster } from "./support/fresh.js"

const cluster = useCluster()

/** Two stores on one new schema, built in this scope: as two server processes. */
const twoStores = (options: { readonly listen: boolean }) =>
  Effect.gen(function*() {
    const schema = freshSchema()
    const build = () =>
      Layer.build(Layer.fresh(
        options.listen
          ? PostgresStore.layer({ url: cluster().url, schema, maxConnections: 3 })
          : Layer.provide(
            PostgresStore.layerOnClient({ schema }),
            PostgresStore.layerClient({ url: cluster().url, maxConnections: 3 })
          )
      ))
    const first = yield* build()
    return [first, yield* build()] as const
  })

const key = new ApiKey.ApiKey({
  id: "key_cachetest",
  prefix: "ask_live_cach",
  digest: "c".repeat(64),
  plan: "free",
  limits: Plan.limitsByPlan.free,
  environment: "production",
  createdAt: new Date(1_000),
  revokedAt: Option.none()
})

const count = (limit: number) => (state: RateLimitStore.RateLimitState | undefined) => {
  const used = state?.minuteCount ?? 0
  const next = { minuteStart: 0, minuteCount: used < limit ? used + 1 : used, dayStart: 0, dayCount: 0, refusedCount: 0, bannedUntil: 0, previousMinuteCount: 0 }
  return [used < limit, next] as const
}

describe("what the PostgreSQL store keeps", () => {
  it.scoped("two stores counting one subject at once accept exactly the limit together, and each reads what the other wrote", () =>
    Effect.gen(function*() {
      const [a, b] = (yield* twoStores({ listen: false })).map((context) => Context.get(context, RateLimitStore.RateLimitStore))
      const accepted = yield* Effect.all(
        Array.from({ length: 120 }, (_, i) => (i % 2 === 0 ? a! : b!).modify("key:shared", count(70))),
        { concurrency: "unbounded" }
      )
      expect(accepted.filter((ok) => ok).length).toBe(70)
      // Each reads what the other wrote before it counts.
      yield* a!.modify("key:alternate", count(1000))
      for (let i = 0; i < 5; i++) {
        yield* b!.modify("key:alternate", count(1000))
        yield* a!.modify("key:alternate", count(1000))
      }
      const seen = yield* a!.modify("key:alternate", (state) => [state?.minuteCount, state!] as const)
      expect(seen).toBe(11)
    }), 60_000)

  it.scoped("a key revoked through another store is refused once keyCacheTtl has passed (no listener)", () =>
    Effect.gen(function*() {
      const [a, b] = (yield* twoStores({ listen: false })).map((context) => Context.get(context, ApiKeyStore.ApiKeyStore))
      yield* a!.insert(key)
      expect(Option.getOrThrow(yield* a!.findByDigest(key.digest)).revokedAt).toEqual(Option.none())
      yield* b!.revoke(key.id, new Date(2_000))
      // Kept: the revocation is not seen yet ...
      expect(Option.getOrThrow(yield* a!.findByDigest(key.digest)).revokedAt).toEqual(Option.none())
      yield* TestClock.adjust(Duration.subtract(PostgresApiKeyStore.keyCacheTtl, Duration.millis(1)))
      expect(Option.getOrThrow(yield* a!.findByDigest(key.digest)).revokedAt).toEqual(Option.none())
      // ... until its time is up.
      yield* TestClock.adjust(Duration.millis(1))
      expect(Option.getOrThrow(yield* a!.findByDigest(key.digest)).revokedAt).toEqual(Option.some(new Date(2_000)))
      // The store that revoked forgets at once.
      expect(Option.getOrThrow(yield* b!.findByDigest(key.digest)).revokedAt).toEqual(Option.some(new Date(2_000)))
    }), 60_000)

  it.scoped("a key revoked through another store is refused at once by a store that listens (the clock stands still)", () =>
    Effect.gen(function*() {
      const [a, b] = (yield* twoStores({ listen: true })).map((context) => Context.get(context, ApiKeyStore.ApiKeyStore))
      yield* a!.insert(key)
      expect(Option.getOrThrow(yield* a!.findByDigest(key.digest)).revokedAt).toEqual(Option.none())
      // Until the listener is up, a revocation may be missed: revoke again until one is seen (the first instant stays).
      const deadline = Date.now() + 10_000
      let seen = Option.none<Date>()
      while (Option.isNone(seen) && Date.now() < deadline) {
        yield* b!.revoke(key.id, new Date(2_000))
        yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 50)))
        seen = Option.getOrThrow(yield* a!.findByDigest(key.digest)).revokedAt
      }
      expect(seen).toEqual(Option.some(new Date(2_000)))
    }), 60_000)
})
