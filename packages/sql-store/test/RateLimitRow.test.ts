import { describe, expect, it } from "@effect/vitest"
import { Exit } from "effect"
import * as fc from "effect/FastCheck"
import { RateLimitRow } from "../src/index.js"

const counter = fc.maxSafeInteger().filter((n) => n >= 0)
const states = fc.record({
  minuteStart: counter,
  minuteCount: counter,
  dayStart: counter,
  dayCount: counter,
  refusedCount: counter,
  bannedUntil: counter,
  previousMinuteCount: counter
})

describe("RateLimitRow", () => {
  it("a state's row reads back as the state, also with integers as decimal strings", () => {
    fc.assert(fc.property(fc.string(), states, (subject, state) => {
      const counters = RateLimitRow.countersOf(state)
      expect(counters).toHaveLength(RateLimitRow.counterColumns.length)
      expect(RateLimitRow.toState([subject, ...counters])).toEqual(state)
      expect(RateLimitRow.toState([subject, ...counters.map(String)])).toEqual(state)
    }))
  })

  it("the counters follow the order of the columns", () => {
    const state = { minuteStart: 1, minuteCount: 2, dayStart: 3, dayCount: 4, refusedCount: 5, bannedUntil: 6, previousMinuteCount: 7 }
    expect(RateLimitRow.counterColumns).toEqual(["minute_start", "minute_count", "day_start", "day_count", "refused_count", "banned_until", "previous_minute_count"])
    expect(RateLimitRow.columns.split(", ")).toEqual(["subject", ...RateLimitRow.counterColumns])
    expect(RateLimitRow.countersOf(state)).toEqual([1, 2, 3, 4, 5, 6, 7])
  })

  it("a counter that is not a safe integer is refused", () => {
    fc.assert(fc.property(states, fc.constantFrom(1.5, Number.NaN, 2 ** 53, Infinity), (state, bad) => {
      expect(() => RateLimitRow.countersOf({ ...state, dayCount: bad })).toThrow(/safe integer/)
    }))
  })

  it("calls counted together run in order, each on the state the calls before it left its subject in; one that throws changes nothing", () => {
    const subjects = fc.constantFrom("key:a", "key:b", "addr:c")
    const calls = fc.array(fc.record({ subject: subjects, add: fc.integer({ min: -1, max: 5 }) }), { maxLength: 30 })
    fc.assert(fc.property(calls, fc.dictionary(subjects, states), (made, stored) => {
      const { exits, states: last } = RateLimitRow.countInOrder(
        made.map(({ add, subject }) => ({
          subject,
          f: (state) => {
            // -1 stands for a rule with a bug: it throws.
            if (add === -1) throw new Error("a bug in the rule")
            const minuteCount = (state?.minuteCount ?? 0) + add
            return [minuteCount, { ...(state ?? zero), minuteCount }]
          }
        })),
        new Map(Object.entries(stored))
      )
      // The same calls one at a time.
      const expected = new Map<string, typeof zero | undefined>()
      made.forEach(({ add, subject }, i) => {
        const state = expected.has(subject) ? expected.get(subject) : stored[subject]
        expected.set(subject, state)
        if (add === -1) {
          expect(Exit.isFailure(exits[i]!) && exits[i].cause._tag).toBe("Die")
          return
        }
        const minuteCount = (state?.minuteCount ?? 0) + add
        expect(exits[i]).toEqual(Exit.succeed(minuteCount))
        expected.set(subject, { ...(state ?? zero), minuteCount })
      })
      expect(exits).toHaveLength(made.length)
      expect(new Map(last)).toEqual(expected)
    }))
  })
})

const zero = { minuteStart: 0, minuteCount: 0, dayStart: 0, dayCount: 0, refusedCount: 0, bannedUntil: 0, previousMinuteCount: 0 }
