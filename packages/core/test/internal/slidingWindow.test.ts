import { describe, expect, it } from "@effect/vitest"
import * as fc from "effect/FastCheck"
import { allowsAt, room } from "../../src/internal/slidingWindow.js"

const M = 60_000

/** Whether `k` more requests fit at `at`, with nothing accepted after `start`'s counts: the rule as written. */
const fits = (limit: number, counts: { start: number; count: number; previous: number }, at: number, k: number) => {
  const minutes = Math.floor((at - counts.start) / M)
  const [count, previous, elapsed] = at < counts.start
    ? [counts.count, counts.previous, 0]
    : minutes === 0
    ? [counts.count, counts.previous, at - counts.start]
    : minutes === 1
    ? [0, counts.count, at - counts.start - M]
    : [0, 0, (at - counts.start) % M]
  return (count + k) * M + previous * (M - elapsed) <= limit * M
}

const cases = fc.record({
  limit: fc.oneof(fc.integer({ min: 1, max: 7 }), fc.integer({ min: 1, max: 2_000_000 })),
  start: fc.integer({ min: 0, max: 1_000_000 }).map((minute) => minute * M),
  elapsed: fc.oneof(fc.constantFrom(0, 1, M - 1), fc.integer({ min: 0, max: M - 1 }), fc.integer({ min: -3 * M, max: -1 })),
  count: fc.nat(),
  previous: fc.nat(),
  k: fc.integer({ min: 1, max: 9 })
}).map(({ count, elapsed, k, limit, previous, start }) => ({
  limit,
  counts: { start, count: count % (limit + 1), previous: previous % (limit + 1) },
  now: start + elapsed,
  k
}))

describe("slidingWindow", () => {
  it("room is the most requests that fit at once now", () => {
    fc.assert(fc.property(cases, ({ counts, limit, now }) => {
      const r = room(limit, counts, now)
      if (r >= 0) expect(fits(limit, counts, now, r)).toBe(true)
      expect(fits(limit, counts, now, r + 1)).toBe(false)
    }), { numRuns: 2_000 })
  })

  it("allowsAt is the first instant, not before now, at which k more fit; Infinity beyond the limit", () => {
    fc.assert(fc.property(cases, ({ counts, k, limit, now }) => {
      const at = allowsAt(limit, counts, now, k)
      if (k > limit) {
        expect(at).toBe(k > room(limit, counts, now) ? Infinity : now)
        return
      }
      expect(at).toBeGreaterThanOrEqual(now)
      expect(fits(limit, counts, at, k)).toBe(true)
      if (at > now) expect(fits(limit, counts, at - 1, k)).toBe(false)
      expect(at).toBeLessThanOrEqual(Math.max(now, counts.start) + 2 * M)
    }), { numRuns: 2_000 })
  })

  it("examples: a full previous minute lets one more in per second of the new one", () => {
    const counts = { start: 10 * M, count: 0, previous: 60 }
    expect(room(60, counts, 10 * M)).toBe(0)
    expect(room(60, counts, 10 * M + 999)).toBe(0)
    expect(room(60, counts, 10 * M + 1_000)).toBe(1)
    expect(room(60, counts, 10 * M + 30_000)).toBe(30)
    expect(allowsAt(60, counts, 10 * M, 1)).toBe(10 * M + 1_000)
    expect(allowsAt(60, counts, 10 * M, 60)).toBe(11 * M)
    expect(allowsAt(60, { start: 10 * M, count: 60, previous: 0 }, 10 * M + 5, 1)).toBe(11 * M + 1_000)
    expect(allowsAt(60, { start: 10 * M, count: 60, previous: 0 }, 10 * M + 5, 61)).toBe(Infinity)
    // Exact with large limits: (2^40 * 60000 - 2^40 * 59999) / 60000.
    expect(room(2 ** 40, { start: 0, count: 0, previous: 2 ** 40 }, 1)).toBe(18_325_193)
  })
})
