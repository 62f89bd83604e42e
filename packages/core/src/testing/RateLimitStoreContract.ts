/**
 * The contract every `RateLimitStore` keeps, as a test suite a store package
 * runs against its own layer.
 *
 * @since 1.0.0
 */
import { describe, expect, it } from "@effect/vitest"
import type { Layer } from "effect"
import { Cause, Effect, Exit } from "effect"
import * as fc from "effect/FastCheck"
import type { RateLimitState } from "../RateLimitStore.js"
import { RateLimitStore } from "../RateLimitStore.js"
import { decide } from "../internal/rateLimit.js"
import type { RateLimitRules } from "../internal/rateLimit.js"

const instant = fc.integer({ min: 0, max: 2 ** 47 })
const count = fc.integer({ min: 0, max: 2 ** 31 })

const state: fc.Arbitrary<RateLimitState> = fc.record({
  minuteStart: instant,
  minuteCount: count,
  dayStart: instant,
  dayCount: count,
  refusedCount: count,
  bannedUntil: fc.oneof(fc.constant(0), instant),
  previousMinuteCount: count
})

/** Subjects are any strings: the limiter stores keys' states only (`key:<id>`), a store must not care. */
const subjects = ["key:key_a", "key:key_b", "127.0.0.1", "::1", "a subject: 2001:db8::1", "école é 🐾"]

const keyRules = (perMinute: number, perDay: number): RateLimitRules => ({
  windows: [{ name: "minute", limit: perMinute }, { name: "day", limit: perDay }],
  ban: { banAfter: 10, banSeconds: 900 }
})

/**
 * A `modify` step that only counts calls: for tests of storage itself, not of the rule.
 *
 * @since 1.0.0
 * @category contracts
 */
export const countCall = (state: RateLimitState | undefined): readonly [number, RateLimitState] => {
  const minuteCount = (state?.minuteCount ?? 0) + 1
  return [minuteCount, { minuteStart: 0, minuteCount, dayStart: 0, dayCount: 0, refusedCount: 0, bannedUntil: 0, previousMinuteCount: 0 }]
}

/**
 * Declares a `describe` block that checks a `RateLimitStore` layer against the
 * contract (record 0020); each build of `layer` must give an empty store.
 *
 * @since 1.0.0
 * @category contracts
 */
export const testRateLimitStore = (name: string, layer: Layer.Layer<RateLimitStore, unknown>): void => {
  describe(`RateLimitStore contract (${name})`, () => {
    it.effect.prop(
      "modify sees undefined first, then each state it stored, and answers f's result",
      { states: fc.array(state, { minLength: 1, maxLength: 6 }), subject: fc.constantFrom(...subjects) },
      ({ states, subject }) =>
        Effect.gen(function*() {
          const store = yield* RateLimitStore
          let previous: RateLimitState | undefined = undefined
          for (const [index, next] of states.entries()) {
            const seen = yield* store.modify(subject, (current) => [{ index, current }, next] as const)
            expect(seen).toEqual({ index, current: previous })
            previous = next
          }
        }).pipe(Effect.provide(layer)),
      { fastCheck: { numRuns: 25 } }
    )

    it.effect.prop(
      "get reads what modify last stored (undefined before), and stores nothing",
      { states: fc.array(state, { maxLength: 4 }), subject: fc.constantFrom(...subjects) },
      ({ states, subject }) =>
        Effect.gen(function*() {
          const store = yield* RateLimitStore
          const other = subjects.find((s) => s !== subject)!
          expect(yield* store.get(subject)).toBeUndefined()
          for (const next of states) {
            yield* store.modify(subject, () => [undefined, next] as const)
            expect(yield* store.get(subject)).toEqual(next)
          }
          expect(yield* store.get(other)).toBeUndefined()
          // a `get` left no state behind: `modify` still sees none for `other`
          expect(yield* store.modify(other, (current) => [current, states[0] ?? countCall(undefined)[1]] as const))
            .toBeUndefined()
        }).pipe(Effect.provide(layer)),
      { fastCheck: { numRuns: 15 } }
    )

    it.effect("subjects are independent", () =>
      Effect.gen(function*() {
        const store = yield* RateLimitStore
        const stored = new Map<string, RateLimitState>()
        for (const [index, subject] of subjects.entries()) {
          const next: RateLimitState = {
            minuteStart: 60_000 * index,
            minuteCount: index,
            dayStart: 0,
            dayCount: 10 + index,
            refusedCount: index,
            bannedUntil: 0,
            previousMinuteCount: 2 * index
          }
          const seen = yield* store.modify(subject, (current) => [current, next] as const)
          expect(seen).toBeUndefined()
          stored.set(subject, next)
        }
        for (const subject of subjects) {
          const seen = yield* store.modify(subject, (current) => [current, current!] as const)
          expect(seen).toEqual(stored.get(subject))
        }
      }).pipe(Effect.provide(layer)))

    it.effect.prop(
      "N fibers consuming one window at once accept exactly the limit",
      {
        fibers: fc.integer({ min: 1, max: 60 }),
        perMinute: fc.integer({ min: 1, max: 40 }),
        now: fc.integer({ min: 0, max: 4_102_444_800_000 })
      },
      ({ fibers, now, perMinute }) =>
        Effect.gen(function*() {
          const store = yield* RateLimitStore
          const step = decide(keyRules(perMinute, 1_000_000), now)
          const decisions = yield* Effect.all(
            Array.from({ length: fibers }, () => store.modify("key:burst", step)),
            { concurrency: "unbounded" }
          )
          const accepted = decisions.filter((decision) => decision.outcome === "Accepted")
          const expected = Math.min(fibers, perMinute)
          expect(accepted.length).toBe(expected)
          const refused = fibers - expected
          expect(decisions.filter((decision) => decision.outcome === "RateLimited").length).toBe(Math.min(refused, 10))
          expect(decisions.filter((decision) => decision.outcome === "Banned").length).toBe(Math.max(0, refused - 10))
          const remaining = accepted.map((decision) => decision.windows[0]!.remaining).sort((a, b) => b - a)
          expect(remaining).toEqual(Array.from({ length: expected }, (_, i) => perMinute - 1 - i))
          const after = yield* store.modify("key:burst", (current) => [current, current!] as const)
          expect(after?.minuteCount).toBe(expected)
          expect(after?.dayCount).toBe(expected)
          // the ban started by refusal 11 restarts the numbering
          expect(after?.refusedCount).toBe(refused > 10 ? 0 : refused)
        }).pipe(Effect.provide(layer)),
      { fastCheck: { numRuns: 25 } }
    )

    it.effect("a rule that throws is a defect of its call alone: the calls made with it count as if it had not been made", () =>
      Effect.gen(function*() {
        const store = yield* RateLimitStore
        const throwing = store.modify("key:key_a", () => {
          throw new Error("a bug in the rule")
        })
        const counting = store.modify("key:key_a", countCall)
        const exits = yield* Effect.all([counting, throwing, counting, throwing, counting].map(Effect.exit), {
          concurrency: "unbounded"
        })
        expect(exits.filter(Exit.isSuccess).map((exit) => exit.value as number).sort((a, b) => a - b)).toEqual([1, 2, 3])
        expect(exits.filter((exit) => Exit.isFailure(exit) && Cause.isDie(exit.cause))).toHaveLength(2)
        expect((yield* store.get("key:key_a"))?.minuteCount).toBe(3)
      }).pipe(Effect.provide(layer)))

    it.effect("concurrent bursts on different subjects each accept exactly their limit", () =>
      Effect.gen(function*() {
        const store = yield* RateLimitStore
        const step = decide(keyRules(7, 1_000_000), 1_700_000_000_000)
        const decisions = yield* Effect.all(
          Array.from({ length: 60 }, (_, i) =>
            Effect.map(store.modify(subjects[i % 3]!, step), (decision) => [i % 3, decision.outcome] as const)),
          { concurrency: "unbounded" }
        )
        for (const subject of [0, 1, 2]) {
          const accepted = decisions.filter(([s, outcome]) => s === subject && outcome === "Accepted")
          expect(accepted.length).toBe(7)
        }
      }).pipe(Effect.provide(layer)))
  })
}
