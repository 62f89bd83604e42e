import { describe, expect, it } from "@effect/vitest"
import * as fc from "effect/FastCheck"
import { RateLimitRow } from "../src/index.js"

const counter = fc.maxSafeInteger().filter((n) => n >= 0)
const states = fc.record({
  minuteStart: counter,
  minuteCount: counter,
  dayStart: counter,
  dayCount: counter,
  refusedCount: counter,
  bannedUntil: counter
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
    const state = { minuteStart: 1, minuteCount: 2, dayStart: 3, dayCount: 4, refusedCount: 5, bannedUntil: 6 }
    expect(RateLimitRow.counterColumns).toEqual(["minute_start", "minute_count", "day_start", "day_count", "refused_count", "banned_until"])
    expect(RateLimitRow.columns.split(", ")).toEqual(["subject", ...RateLimitRow.counterColumns])
    expect(RateLimitRow.countersOf(state)).toEqual([1, 2, 3, 4, 5, 6])
  })

  it("a counter that is not a safe integer is refused", () => {
    fc.assert(fc.property(states, fc.constantFrom(1.5, Number.NaN, 2 ** 53, Infinity), (state, bad) => {
      expect(() => RateLimitRow.countersOf({ ...state, dayCount: bad })).toThrow(/safe integer/)
    }))
  })
})
