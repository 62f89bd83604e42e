/**
 * The sliding minute (record 0055): the current UTC minute's count plus the
 * previous minute's weighted by its share of the last 60 seconds, in integers.
 * @internal
 */

const minute = 60_000

/** `floor(a / b)`, exact for the numerators of limits up to 100 billion a minute (record 0055). */
const divide = (a: number, b: number): number => Math.floor(a / b)

/**
 * The counts of a sliding minute: `count` in the minute from `start`, `previous` in the one before.
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
 * How many more requests `limit` allows at `now` at once (negative when even none fits).
 * @internal
 */
export const room = (limit: number, counts: SlidingCounts, now: number): number =>
  divide(limit * minute - counts.previous * (minute - elapsed(counts, now)), minute) - counts.count

/**
 * The earliest instant from `now` at which `limit` allows `k` more requests
 * if none is accepted meanwhile; `Infinity` when `k` exceeds `limit`.
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
