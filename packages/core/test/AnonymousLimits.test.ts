/**
 * Requests without a valid key are counted per client address in the
 * limiter's memory, never in the store: at most `anonymousAddresses` buckets,
 * the least recently seen forgotten first; an address's decisions are those
 * the store-backed rule gave; IPv6 addresses share a bucket per /64 prefix.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer, Metric, MetricState, TestClock } from "effect"
import * as fc from "effect/FastCheck"
import * as AccessConfig from "../src/AccessConfig.js"
import * as PlanRateLimiter from "../src/PlanRateLimiter.js"
import type { RateLimitState } from "../src/RateLimitStore.js"
import { RateLimitStore } from "../src/RateLimitStore.js"
import { bucketOf } from "../src/internal/addressBucket.js"
import * as AddressStates from "../src/internal/addressStates.js"
import { decide } from "../src/internal/rateLimit.js"
import * as ModelRateLimitStore from "./internal/ModelRateLimitStore.js"

const minuteMs = 60_000

/** A store that must not be used: any call is a defect. */
const untouchableStore = Layer.succeed(RateLimitStore, {
  modify: (subject) => Effect.dieMessage(`the store was asked to count ${subject}`),
  get: (subject) => Effect.dieMessage(`the store was asked for ${subject}`)
})

const limiterLayer = (settings: Partial<AccessConfig.AccessSettings>, store = untouchableStore) =>
  PlanRateLimiter.layer.pipe(Layer.provide(Layer.merge(store, AccessConfig.layer(settings))))

const check = (address: string) =>
  Effect.flatMap(PlanRateLimiter.PlanRateLimiter, (limiter) => limiter.check({ _tag: "Address", address }))

// Addresses as numbers, and their spellings ---------------------------------------------------------

const v6 = fc.oneof(
  fc.bigInt({ min: 0n, max: 2n ** 128n - 1n }),
  // with runs of zero groups and 0xffff groups, near the IPv4-mapped ones
  fc.array(fc.constantFrom(0, 0, 0, 0xffff, 1), { minLength: 8, maxLength: 8 }).chain((groups) =>
    fc.bigInt({ min: 0n, max: 2n ** 32n - 1n }).map((low) =>
      (groups.slice(0, 6).reduce((n, group) => (n << 16n) | BigInt(group), 0n) << 32n) | low
    )
  )
)
const v4 = fc.integer({ min: 0, max: 2 ** 32 - 1 })

const v4Text = (n: number): string => [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join(".")

/** One of the spellings of an IPv6 address: groups padded or not, any zero run of two or more compressed, any case, the last 32 bits dotted. */
const v6Spelling = (n: bigint) =>
  fc.record({ pad: fc.boolean(), compress: fc.nat(), upper: fc.boolean(), dotted: fc.boolean() }).map(
    ({ compress, dotted, pad, upper }) => {
      const groups = [112n, 96n, 80n, 64n, 48n, 32n, 16n, 0n].map((shift) => Number((n >> shift) & 0xffffn))
      let texts = groups.map((group) => pad ? group.toString(16).padStart(4, "0") : group.toString(16))
      if (dotted) texts = [...texts.slice(0, 6), v4Text(Number(n & 0xffffffffn))]
      const runs: Array<[number, number]> = []
      for (let at = 0; at < texts.length; at++) {
        for (let end = at + 2; end <= texts.length && groups.slice(at, end).every((g) => g === 0); end++) {
          if (!dotted || end <= 6) runs.push([at, end])
        }
      }
      let text = texts.join(":")
      if (runs.length > 0) {
        const [at, end] = runs[compress % runs.length]!
        text = `${texts.slice(0, at).join(":")}::${texts.slice(end).join(":")}`
      }
      return upper ? text.toUpperCase() : text
    }
  )

/** A second address sharing the first `keep` bits of `near`, so that the same /64 and others both occur. */
const v6Near = (near: bigint) =>
  fc.tuple(fc.constantFrom(0, 32, 63, 64, 80, 127, 128), v6).map(([keep, random]) => {
    const mask = keep === 0 ? 0n : ((1n << BigInt(keep)) - 1n) << BigInt(128 - keep)
    return (near & mask) | (random & ~mask & (2n ** 128n - 1n))
  })

const isMapped = (n: bigint) => n >> 32n === 0xffffn

describe("AddressStates", () => {
  /** What a bucket's step saw: how many times it was counted since it was last forgotten. */
  const countStep = (state: RateLimitState | undefined): readonly [number, RateLimitState] => {
    const count = (state?.minuteCount ?? 0) + 1
    return [count, { minuteStart: 0, minuteCount: count, dayStart: 0, dayCount: 0, refusedCount: 0, bannedUntil: 0, previousMinuteCount: 0 }]
  }

  it.effect.prop(
    "never holds more than its capacity; forgets the least recently seen first; a held bucket keeps its state",
    {
      capacity: fc.integer({ min: 1, max: 6 }),
      uses: fc.array(fc.integer({ min: 0, max: 9 }), { maxLength: 80 })
    },
    ({ capacity, uses }) =>
      Effect.gen(function*() {
        const states = yield* AddressStates.make(capacity)
        // The model: buckets least recently seen first, with their counts.
        let model: Array<[string, number]> = []
        for (const use of uses) {
          const bucket = `b${use}`
          const held = model.find(([name]) => name === bucket)
          const expected = (held?.[1] ?? 0) + 1
          model = [...model.filter(([name]) => name !== bucket), [bucket, expected] as [string, number]].slice(-capacity)
          expect(yield* states.modify(bucket, countStep)).toBe(expected)
          const buckets = yield* states.buckets
          expect(buckets.length).toBeLessThanOrEqual(capacity)
          expect(buckets).toEqual(model.map(([name]) => name))
        }
      }),
    { fastCheck: { numRuns: 50 } }
  )
})

describe("addresses without a valid key", () => {
  it.effect.prop(
    "an address's decisions are those the store-backed rule gives for the same requests at the same times",
    {
      anonymousPerMinute: fc.integer({ min: 1, max: 6 }),
      requests: fc.array(
        fc.record({
          address: fc.constantFrom("192.0.2.1", "192.0.2.2", "2001:db8:0:1::1", "2001:db8:0:2::1", "unknown"),
          gap: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 5_000 }), fc.integer({ min: 0, max: 3 * minuteMs }))
        }),
        { maxLength: 60 }
      ),
      start: fc.integer({ min: 0, max: 4_102_444_800_000 })
    },
    ({ anonymousPerMinute, requests, start }) =>
      Effect.gen(function*() {
        // The rule as it ran in the store: the address's own subject, the address rules.
        const reference = yield* ModelRateLimitStore.make
        const rules = { windows: [{ name: "minute", limit: anonymousPerMinute }], ban: undefined } as const
        let now = start
        yield* TestClock.setTime(now)
        for (const { address, gap } of requests) {
          now += gap
          yield* TestClock.setTime(now)
          const expected = yield* reference.modify(`addr:${address}`, decide(rules, now))
          expect(yield* check(address)).toEqual(expected)
        }
      }).pipe(Effect.provide(limiterLayer({ anonymousPerMinute, banAfter: 1 }))),
    { fastCheck: { numRuns: 40 } }
  )

  it.effect("a keyless request asks nothing of the store; a key is counted there as before", () =>
    Effect.gen(function*() {
      const store = yield* ModelRateLimitStore.make
      const asked: Array<string> = []
      const limiter = yield* PlanRateLimiter.make.pipe(
        Effect.provideService(RateLimitStore, {
          modify: (subject, f) => Effect.suspend(() => (asked.push(subject), store.modify(subject, f))),
          get: (subject) => Effect.suspend(() => (asked.push(subject), store.get(subject)))
        }),
        Effect.provide(AccessConfig.layer())
      )
      for (let i = 0; i < 300; i++) yield* limiter.check({ _tag: "Address", address: `198.51.100.${i % 256}` })
      expect(asked).toEqual([])
      const principal = { keyId: "key_a", plan: "free", limits: { perMinute: 60, perDay: 1000 }, environment: "production" } as const
      yield* limiter.check({ _tag: "Key", principal })
      expect(asked).toEqual(["key:key_a"])
      expect((yield* store.get("key:key_a"))?.minuteCount).toBe(1)
    }))

  it.effect("is limited per address while the store fails; the decisions count as anonymous", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(Date.UTC(2026, 4, 1, 10, 0, 30))
      const rateLimited = Effect.map(Metric.snapshot, (pairs) =>
        pairs.filter(({ metricKey }) =>
          metricKey.name === PlanRateLimiter.decisionsMetric &&
          metricKey.tags.some((tag) => tag.key === "outcome" && tag.value === "rate_limited") &&
          metricKey.tags.some((tag) => tag.key === "plan" && tag.value === "anonymous")
        ).reduce((sum, { metricState }) => sum + (MetricState.isCounterState(metricState) ? Number(metricState.count) : 0), 0)
      )
      const before = yield* rateLimited
      const outcomes = []
      for (let i = 0; i < 4; i++) outcomes.push((yield* check("203.0.113.9")).outcome)
      expect(outcomes).toEqual(["Accepted", "Accepted", "Accepted", "RateLimited"])
      expect((yield* check("203.0.113.10")).outcome).toBe("Accepted")
      expect((yield* rateLimited) - before).toBe(1)
    }).pipe(Effect.provide(limiterLayer({ anonymousPerMinute: 3 }))))

  it.effect("beyond anonymousAddresses, the least recently seen address is forgotten and starts afresh", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(Date.UTC(2026, 4, 1, 10, 0, 30))
      for (const address of ["192.0.2.1", "192.0.2.2"]) {
        expect((yield* check(address)).outcome).toBe("Accepted")
        expect((yield* check(address)).outcome).toBe("RateLimited")
      }
      // 192.0.2.1 seen again: now 192.0.2.2 is the least recently seen.
      expect((yield* check("192.0.2.1")).outcome).toBe("RateLimited")
      expect((yield* check("192.0.2.3")).outcome).toBe("Accepted")
      expect((yield* check("192.0.2.1")).outcome).toBe("RateLimited")
      expect((yield* check("192.0.2.2")).outcome).toBe("Accepted")
    }).pipe(Effect.provide(limiterLayer({ anonymousPerMinute: 1, anonymousAddresses: 2 }))))

  it.effect.prop(
    "two IPv6 addresses share one limit exactly when their first 64 bits are equal, however each is written",
    {
      pair: v6.chain((first) => fc.tuple(fc.constant(first), v6Near(first))).chain(([first, second]) =>
        fc.tuple(fc.constant(first), fc.constant(second), v6Spelling(first), v6Spelling(second))
      )
    },
    ({ pair: [first, second, a, b] }) =>
      Effect.gen(function*() {
        fc.pre(!isMapped(first) && !isMapped(second))
        expect((yield* check(a)).outcome).toBe("Accepted")
        const shared = first >> 64n === second >> 64n
        expect((yield* check(b)).outcome).toBe(shared ? "RateLimited" : "Accepted")
      }).pipe(Effect.provide(limiterLayer({ anonymousPerMinute: 1 }))),
    { fastCheck: { numRuns: 100 } }
  )
})

describe("bucketOf", () => {
  it.prop(
    "an IPv6 address's bucket is its /64 prefix, whatever its spelling",
    [v6.chain((n) => fc.tuple(fc.constant(n), v6Spelling(n)))],
    ([[n, text]]) => {
      fc.pre(!isMapped(n))
      const prefix = [112n, 96n, 80n, 64n].map((shift) => ((n >> shift) & 0xffffn).toString(16)).join(":")
      expect(bucketOf(text)).toBe(`${prefix}::/64`)
    },
    { fastCheck: { numRuns: 500 } }
  )

  it.prop(
    "an IPv4 address is its own bucket, also written IPv4-mapped in any spelling",
    [v4.chain((n) => fc.tuple(fc.constant(n), v6Spelling(0xffff00000000n + BigInt(n))))],
    ([[n, mapped]]) => {
      expect(bucketOf(v4Text(n))).toBe(v4Text(n))
      expect(bucketOf(mapped)).toBe(v4Text(n))
    },
    { fastCheck: { numRuns: 300 } }
  )

  it("other text is its own bucket; a zone id is not part of the address", () => {
    for (const text of ["unknown", "", "010.0.0.1", "10.0.0.1:80", "[::1]", "2001:db8::/64", " 10.0.0.1"]) {
      expect(bucketOf(text)).toBe(text)
    }
    expect(bucketOf("fe80::1%eth0")).toBe("fe80:0:0:0::/64")
    // Near the IPv4-mapped addresses, but not one.
    expect(bucketOf("::fffe:1.2.3.4")).toBe("0:0:0:0::/64")
    expect(bucketOf("1::ffff:1.2.3.4")).toBe("1:0:0:0::/64")
    expect(bucketOf("::ffff:0:1.2.3.4")).toBe("0:0:0:0::/64")
  })
})
