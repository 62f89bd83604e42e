/**
 * A subject's `RateLimitState` as the SQL stores keep it: one row of its
 * subject and seven integer counters; and the calls they count together.
 *
 * @since 1.0.0
 */
import type { RateLimitStore } from "@animal-store/core"
import { Exit } from "effect"

type State = RateLimitStore.RateLimitState

/**
 * The counter columns, in the order of a row's counters.
 *
 * @since 1.0.0
 * @category constants
 */
export const counterColumns = ["minute_start", "minute_count", "day_start", "day_count", "refused_count", "banned_until",
  "previous_minute_count"] as const

/**
 * The columns of a row, in the order of `RateLimitRow`.
 *
 * @since 1.0.0
 * @category constants
 */
export const columns = `subject, ${counterColumns.join(", ")}`

/**
 * A row: the subject, then its counters in the order of `counterColumns`.
 * Drivers may return integers as decimal strings (PostgreSQL's `bigint`); a
 * counter is NULL in a row an earlier version created.
 *
 * @since 1.0.0
 * @category models
 */
export type RateLimitRow = readonly [subject: string, ...counters: ReadonlyArray<number | string | null>]

/**
 * Whether `u` is a row: a subject, then integers or NULLs.
 *
 * @since 1.0.0
 * @category guards
 */
export const isRateLimitRow = (u: unknown): u is RateLimitRow => {
  if (!Array.isArray(u) || typeof u[0] !== "string") return false
  for (let i = 1; i < u.length; i++) {
    const counter: unknown = u[i]
    if (typeof counter !== "number" && typeof counter !== "string" && counter !== null) return false
  }
  return true
}

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
  bannedUntil: Number(row[6]),
  previousMinuteCount: Number(row[7] ?? 0)
})

/**
 * The counters of `state`, in the order of `counterColumns`; throws on one
 * that is not a safe integer (a bug of the rule that made it).
 *
 * @since 1.0.0
 * @category conversions
 */
export const countersOf = (state: RateLimitStore.RateLimitState): ReadonlyArray<number> => {
  const counters = [state.minuteStart, state.minuteCount, state.dayStart, state.dayCount, state.refusedCount, state.bannedUntil,
    state.previousMinuteCount]
  for (const counter of counters) {
    if (!Number.isSafeInteger(counter)) throw new Error(`A rate-limit counter must be a safe integer, got ${counter}`)
  }
  return counters
}

/**
 * Counts calls of `modify` made together, in order, each rule on the state the calls before it left
 * its subject in (`stored` at first): each call's exit (a rule that throws is a defect of its call
 * alone, and changes nothing) and each subject's last state.
 *
 * @since 1.0.0
 * @category constructors
 */
export const countInOrder = (
  calls: ReadonlyArray<{ readonly subject: string; readonly f: (state: State | undefined) => readonly [unknown, State] }>,
  stored: ReadonlyMap<string, State | undefined>
): { readonly exits: ReadonlyArray<Exit.Exit<unknown>>; readonly states: ReadonlyMap<string, State | undefined> } => {
  const states = new Map<string, State | undefined>()
  const exits = calls.map(({ f, subject }): Exit.Exit<unknown> => {
    const state = states.has(subject) ? states.get(subject) : stored.get(subject)
    states.set(subject, state)
    try {
      const [result, next] = f(state)
      states.set(subject, next)
      return Exit.succeed(result)
    } catch (defect) {
      return Exit.die(defect)
    }
  })
  return { exits, states }
}
