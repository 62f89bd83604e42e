/**
 * The sliding minute of decisions.md "Rate limits": the requests counted now
 * are the current UTC minute's plus the previous minute's weighted by the
 * share of it still inside the last 60 seconds. Integer arithmetic on
 * milliseconds, so the rule is exact.
 * @internal
 */

const minute = 60_000

/**
 * `floor(a / b)` of integers below 2^53: exact, since a correctly rounded
 * quotient never crosses an integer while `a` stays well below 2^53 (limits up to 100
 * billion a minute keep every numerator below 6e15).
 */
const divide = (a: number, b: number): number => Math.floor(a / b)

/**
 * The counts of a sliding minute: `count` accepted in the minute from
 * `start`, `previous` in the minute before it.
 * @internal
 */
export interface SlidingCounts {
  readonly start: number
  readonly count: number
  readonly previous: number
}

/** Milliseconds of the current minute elapsed at `now` (0 when its start is later, a clock behind). */
const elapsed = (counts: SlidingCounts, now: number): number => Math.max(0, now - counts.start)

/**
 * How many more requests `limit` allows at `now` at once: the largest `k`
 * with `count + k + previous * (60000 - elapsed) / 60000 <= limit` (negative
 * when even none fits).
 * @internal
 */
export const room = (limit: number, counts: SlidingCounts, now: number): number =>
  divide(limit * minute - counts.previous * (minute - elapsed(counts, now)), minute) - counts.count

/**
 * The earliest instant, not before `now`, at which `limit` allows `k` more
 * requests at once if none is accepted meanwhile; `Infinity` when `k`
 * exceeds `limit`. The weighted count only falls with time, so every later
 * instant allows them too.
 * @internal
 */
export const allowsAt = (limit: number, counts: SlidingCounts, now: number, k: number): number => {
  if (room(limit, counts, now) >= k) return now
  if (k > limit) return Infinity
  const { count, previous, start } = counts
  // In this minute: previous * elapsed >= (count + k - limit) * 60000 + previous * 60000.
  if (count + k <= limit) return start + minute - divide((limit - count - k) * minute, previous)
  // In the next minute, where this minute's count is the previous one.
  return start + 2 * minute - divide((limit - k) * minute, count)
}
