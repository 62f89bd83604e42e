/**
 * The contract every `ApiKeyStore` keeps, as a test suite a store package
 * runs against its own layer.
 *
 * @since 1.0.0
 */
import { describe, expect, it } from "@effect/vitest"
import type { Layer } from "effect"
import { Effect, Option } from "effect"
import * as fc from "effect/FastCheck"
import { ApiKey, Environment } from "../ApiKey.js"
import { ApiKeyStore } from "../ApiKeyStore.js"
import { limitsByPlan, Plan } from "../Plan.js"

const hex = "0123456789abcdef"
const digest = fc.string({ unit: fc.constantFrom(...hex), minLength: 64, maxLength: 64 })
const instant = fc.integer({ min: 0, max: 4_102_444_800_000 }).map((ms) => new Date(ms))

const apiKey: fc.Arbitrary<ApiKey> = fc.record({
  id: fc.stringMatching(/^key_[A-Za-z0-9_-]{1,24}$/),
  prefix: fc.stringMatching(/^ask_(live|test)_[A-Za-z0-9_-]{4}$/),
  digest,
  plan: fc.constantFrom(...Plan.literals),
  limits: fc.record({
    perMinute: fc.integer({ min: 1, max: 2 ** 31 }),
    perDay: fc.integer({ min: 1, max: 2 ** 31 })
  }),
  environment: fc.constantFrom(...Environment.literals),
  createdAt: instant,
  revokedAt: fc.option(instant, { nil: undefined }).map(Option.fromNullable),
  expiresAt: fc.option(instant, { nil: undefined }).map(Option.fromNullable),
  window: fc.constantFrom("fixed" as const, "sliding" as const),
  previousSecret: fc.option(
    fc.record({ digest, prefix: fc.stringMatching(/^ask_(live|test)_[A-Za-z0-9_-]{4}$/), until: instant }),
    { nil: undefined }
  ).map(Option.fromNullable)
}).map((fields) => new ApiKey(fields))

/** The digests a key is found by. */
const digestsOf = (key: ApiKey): ReadonlyArray<string> => [key.digest, ...Option.toArray(key.previousSecret).map((p) => p.digest)]

let sequence = 0

/** A distinct, fully valid key created at `createdAt`. */
const sampleKey = (createdAt: number, fields: Partial<ConstructorParameters<typeof ApiKey>[0]> = {}): ApiKey => {
  sequence += 1
  const n = String(sequence).padStart(4, "0")
  return new ApiKey({
    id: `key_sample${n}`,
    prefix: `ask_live_${n}`,
    digest: n.padStart(64, "a"),
    plan: "free",
    limits: limitsByPlan.free,
    environment: "production",
    createdAt: new Date(createdAt),
    revokedAt: Option.none(),
    ...fields
  })
}

/**
 * Declares a `describe` block that checks an `ApiKeyStore` layer against the
 * contract; each build of `layer` must give an empty store.
 *
 * @since 1.0.0
 * @category contracts
 */
export const testApiKeyStore = (name: string, layer: Layer.Layer<ApiKeyStore, unknown>): void => {
  describe(`ApiKeyStore contract (${name})`, () => {
    it.effect.prop(
      "a stored key is found by its digest exactly as inserted; other digests find nothing",
      {
        // Stored keys have distinct digests and distinct ids (ids are random, 96 bits).
        keys: fc.uniqueArray(apiKey, {
          comparator: (a, b) => digestsOf(a).some((d) => digestsOf(b).includes(d)) || a.id === b.id,
          minLength: 1,
          maxLength: 5
        }),
        other: digest
      },
      ({ keys, other }) =>
        Effect.gen(function*() {
          const store = yield* ApiKeyStore
          for (const key of keys) {
            expect(yield* store.insert(key)).toEqual(key)
          }
          for (const key of keys) {
            for (const digest of digestsOf(key)) {
              const found = yield* store.findByDigest(digest)
              expect(Option.isSome(found)).toBe(true)
              expect(Option.getOrThrow(found)).toBeInstanceOf(ApiKey)
              expect(found).toEqual(Option.some(key))
            }
          }
          if (!keys.some((key) => digestsOf(key).includes(other))) {
            expect(yield* store.findByDigest(other)).toEqual(Option.none())
          }
        }).pipe(Effect.provide(layer)),
      { fastCheck: { numRuns: 25 } }
    )

    it.effect("inserting a stored digest changes nothing and answers the stored key", () =>
      Effect.gen(function*() {
        const store = yield* ApiKeyStore
        const first = sampleKey(1_000)
        const again = new ApiKey({
          ...sampleKey(2_000),
          digest: first.digest,
          plan: "enterprise",
          limits: { perMinute: 5, perDay: 50 }
        })
        expect(yield* store.insert(first)).toEqual(first)
        expect(yield* store.insert(again)).toEqual(first)
        expect(yield* store.findByDigest(first.digest)).toEqual(Option.some(first))
        expect(yield* store.list).toEqual([first])
        expect(yield* store.revoke(again.id, new Date(3_000))).toEqual(Option.none())
      }).pipe(Effect.provide(layer)))

    it.effect("concurrent inserts of one digest store it once and all answer the stored key", () =>
      Effect.gen(function*() {
        const store = yield* ApiKeyStore
        const candidates = Array.from({ length: 20 }, (_, i) => sampleKey(1_000 + i))
        const digest = candidates[0]!.digest
        const answers = yield* Effect.all(
          candidates.map((key) => store.insert(new ApiKey({ ...key, digest }))),
          { concurrency: "unbounded" }
        )
        const stored = yield* store.list
        expect(stored.length).toBe(1)
        for (const answer of answers) expect(answer).toEqual(stored[0])
        expect(yield* store.findByDigest(digest)).toEqual(Option.some(stored[0]))
      }).pipe(Effect.provide(layer)))

    it.effect("list gives every key, revoked ones included, oldest first", () =>
      Effect.gen(function*() {
        const store = yield* ApiKeyStore
        expect(yield* store.list).toEqual([])
        const keys = [5_000, 1_000, 3_000, 4_000, 2_000].map((at) => sampleKey(at))
        for (const key of keys) yield* store.insert(key)
        const revoked = yield* store.revoke(keys[2]!.id, new Date(6_000))
        const expected = [...keys]
          .map((key) => (key.id === keys[2]!.id ? Option.getOrThrow(revoked) : key))
          .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime())
        expect(yield* store.list).toEqual(expected)
      }).pipe(Effect.provide(layer)))

    it.effect("rotate gives a key a new digest and keeps its current one as the previous, replacing an earlier previous one", () =>
      Effect.gen(function*() {
        const store = yield* ApiKeyStore
        const key = sampleKey(1_000, { expiresAt: Option.some(new Date(9_000)), window: "sliding" })
        const other = sampleKey(1_500)
        yield* store.insert(key)
        yield* store.insert(other)
        const next = { digest: "b".repeat(64), prefix: "ask_live_bbbb" }
        const rotated = yield* store.rotate(key.id, next, new Date(5_000))
        const expected = new ApiKey({
          ...key,
          ...next,
          previousSecret: Option.some({ digest: key.digest, prefix: key.prefix, until: new Date(5_000) })
        })
        expect(rotated).toEqual(Option.some(expected))
        expect(yield* store.findByDigest(next.digest)).toEqual(Option.some(expected))
        expect(yield* store.findByDigest(key.digest)).toEqual(Option.some(expected))
        expect(yield* store.list).toEqual([expected, other])
        // A digest stored as a previous one is not inserted again as another key.
        expect(yield* store.insert(sampleKey(2_000, { digest: key.digest }))).toEqual(expected)
        expect((yield* store.list).length).toBe(2)

        const third = { digest: "c".repeat(64), prefix: "ask_live_cccc" }
        const again = new ApiKey({
          ...expected,
          ...third,
          previousSecret: Option.some({ digest: next.digest, prefix: next.prefix, until: new Date(6_000) })
        })
        expect(yield* store.rotate(key.id, third, new Date(6_000))).toEqual(Option.some(again))
        expect(yield* store.findByDigest(key.digest)).toEqual(Option.none())
        expect(yield* store.findByDigest(next.digest)).toEqual(Option.some(again))
        expect(yield* store.findByDigest(third.digest)).toEqual(Option.some(again))
        const revoked = new ApiKey({ ...again, revokedAt: Option.some(new Date(7_000)) })
        expect(yield* store.revoke(key.id, new Date(7_000))).toEqual(Option.some(revoked))
        expect(yield* store.findByDigest(next.digest)).toEqual(Option.some(revoked))
        expect(yield* store.rotate("key_unknown", third, new Date(6_000))).toEqual(Option.none())
        expect(yield* store.findByDigest(other.digest)).toEqual(Option.some(other))
      }).pipe(Effect.provide(layer)))

    it.effect("revoke marks the key revoked at the given instant, once", () =>
      Effect.gen(function*() {
        const store = yield* ApiKeyStore
        const key = sampleKey(1_000)
        const other = sampleKey(1_500)
        yield* store.insert(key)
        yield* store.insert(other)
        const revoked = yield* store.revoke(key.id, new Date(2_345))
        const expected = new ApiKey({ ...key, revokedAt: Option.some(new Date(2_345)) })
        expect(revoked).toEqual(Option.some(expected))
        expect(yield* store.findByDigest(key.digest)).toEqual(Option.some(expected))
        expect(yield* store.revoke(key.id, new Date(9_999))).toEqual(Option.some(expected))
        expect(yield* store.findByDigest(key.digest)).toEqual(Option.some(expected))
        expect(yield* store.findByDigest(other.digest)).toEqual(Option.some(other))
        expect(yield* store.revoke("key_unknown", new Date(3_000))).toEqual(Option.none())
      }).pipe(Effect.provide(layer)))
  })
}
