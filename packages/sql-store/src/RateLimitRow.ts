/**
 * A subject's `RateLimitState` as the SQL stores keep it: one row of its
 * subject and six integer counters.
 *
 * @since 1.0.0
 */
import type { RateLimitStore } from "@animal-store/core"

/**
 * The counter columns, in the order of a row's counters.
 *
 * @since 1.0.0
 * @category constants
 */
export const counterColumns = ["minute_start", "minute_count", "day_start", "day_count", "refused_count", "banned_until"] as const

/**
 * The columns of a row, in the order of `RateLimitRow`.
 *
 * @since 1.0.0
 * @category constants
 */
export const columns = `subject, ${counterColumns.join(", ")}`

/**
 * A row: the subject, then its counters in the order of `counterColumns`.
 * Drivers may return integers as decimal strings (PostgreSQL's `bigint`).
 *
 * @since 1.0.0
 * @category models
 */
export type RateLimitRow = readonly [subject: string, ...counters: ReadonlyArray<number | string>]

/**
 * The state a row holds.
 *
 * @since 1.0.0
 * @category conversions
 */
export const toState = (row: RateLimitRow): RateLimitStore.RateLimitState => ({
  minuteStart: Number(row[1]),
  minuteCount: Number(row[2]),
  dayStart: Number(row[3]),
  dayCount: Number(row[4]),
  refusedCount: Number(row[5]),
  bannedUntil: Number(row[6])
})

/**
 * The counters of `state`, in the order of `counterColumns`; throws on one
 * that is not a safe integer (a bug of the rule that made it).
 *
 * @since 1.0.0
 * @category conversions
 */
export const countersOf = (state: RateLimitStore.RateLimitState): ReadonlyArray<number> => {
  const counters = [state.minuteStart, state.minuteCount, state.dayStart, state.dayCount, state.refusedCount, state.bannedUntil]
  for (const counter of counters) {
    if (!Number.isSafeInteger(counter)) throw new Error(`A rate-limit counter must be a safe integer, got ${counter}`)
  }
  return counters
}
