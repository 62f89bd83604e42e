import { Array as Arr } from "effect"
import type { RateLimitDecision, RateLimitWindow } from "../PlanRateLimiter.js"
import type { RateLimitState } from "../RateLimitStore.js"

/**
 * A fixed UTC window and the requests it allows.
 * @internal
 */
export interface WindowLimit {
  readonly name: RateLimitWindow["name"]
  readonly limit: number
}

/**
 * How many refused requests are answered `rate_limited` before a ban of
 * `banSeconds` starts.
 * @internal
 */
export interface BanPolicy {
  readonly banAfter: number
  readonly banSeconds: number
}

/**
 * The rules of one subject: its windows and, for keys, its ban policy.
 * @internal
 */
export interface RateLimitRules {
  readonly windows: Arr.NonEmptyReadonlyArray<WindowLimit>
  readonly ban: BanPolicy | undefined
}

/** @internal */
export const windowSeconds: { readonly [N in WindowLimit["name"]]: number } = {
  minute: 60,
  day: 86_400
}

interface Counter {
  readonly start: number
  readonly count: number
}

const stored = (state: RateLimitState, name: WindowLimit["name"]): Counter =>
  name === "minute"
    ? { start: state.minuteStart, count: state.minuteCount }
    : { start: state.dayStart, count: state.dayCount }

/**
 * The counter of the window holding `now`. A stored window that starts later
 * than `now`'s (a process whose clock is behind) is kept, so a shared store
 * never forgets counted requests.
 */
const current = (state: RateLimitState | undefined, name: WindowLimit["name"], now: number): Counter => {
  const length = windowSeconds[name] * 1000
  const start = Math.floor(now / length) * length
  if (state === undefined) return { start, count: 0 }
  const previous = stored(state, name)
  return previous.start >= start ? previous : { start, count: 0 }
}

const secondsUntil = (instant: number, now: number): number => Math.ceil((instant - now) / 1000)

/**
 * The window to report: fewest remaining; on a tie, the later reset.
 * @internal
 */
export const reportedWindow = (windows: Arr.NonEmptyReadonlyArray<RateLimitWindow>): RateLimitWindow =>
  Arr.reduce(Arr.tailNonEmpty(windows), Arr.headNonEmpty(windows), (best, window) =>
    window.remaining < best.remaining || (window.remaining === best.remaining && window.reset >= best.reset)
      ? window
      : best
  )

/**
 * The rate-limit rule, as the pure step a `RateLimitStore` runs atomically:
 * from the subject's state at `now` (Unix epoch milliseconds), the decision
 * on one request and the next state.
 *
 * - While banned (`now < bannedUntil`): `Banned`, counted nowhere.
 * - Else, if any window is full: refused and numbered (`refusedCount + 1`);
 *   a number beyond `banAfter` starts a ban of `banSeconds` (`Banned`),
 *   otherwise `RateLimited` until the latest reset among the full windows.
 *   Counted in no window.
 * - Else accepted: counted in every window, numbering of refusals restarts.
 *
 * @internal
 */
export const decide = (rules: RateLimitRules, now: number) =>
(state: RateLimitState | undefined): readonly [RateLimitDecision, RateLimitState] => {
  const minute = current(state, "minute", now)
  const day = current(state, "day", now)
  const counters = { minute, day }
  const refusedCount = state?.refusedCount ?? 0
  const bannedUntil = state?.bannedUntil ?? 0

  const windowsAfter = (consumed: number): Arr.NonEmptyReadonlyArray<RateLimitWindow> =>
    Arr.map(rules.windows, ({ limit, name }) => {
      const counter = counters[name]
      return {
        name,
        seconds: windowSeconds[name],
        limit,
        remaining: Math.max(0, limit - counter.count - consumed),
        reset: (counter.start + windowSeconds[name] * 1000) / 1000
      }
    })
  const nextState = (consumed: number, refused: number, banEnd: number): RateLimitState => {
    const counts = (name: WindowLimit["name"]) =>
      rules.windows.some((window) => window.name === name) ? counters[name].count + consumed : 0
    return {
      minuteStart: minute.start,
      minuteCount: counts("minute"),
      dayStart: day.start,
      dayCount: counts("day"),
      refusedCount: refused,
      bannedUntil: banEnd
    }
  }
  const refuse = (
    outcome: "RateLimited" | "Banned",
    until: number,
    next: RateLimitState
  ): readonly [RateLimitDecision, RateLimitState] => {
    const windows = windowsAfter(0)
    return [{ outcome, reported: reportedWindow(windows), windows, retryAfter: secondsUntil(until, now) }, next]
  }

  if (now < bannedUntil) {
    return refuse("Banned", bannedUntil, nextState(0, refusedCount, bannedUntil))
  }
  const full = rules.windows.filter(({ limit, name }) => counters[name].count >= limit)
  if (full.length > 0) {
    const number = refusedCount + 1
    if (rules.ban !== undefined && number > rules.ban.banAfter) {
      const banEnd = now + rules.ban.banSeconds * 1000
      return refuse("Banned", banEnd, nextState(0, number, banEnd))
    }
    const reset = Math.max(...full.map(({ name }) => counters[name].start + windowSeconds[name] * 1000))
    return refuse("RateLimited", reset, nextState(0, number, bannedUntil))
  }
  const windows = windowsAfter(1)
  return [
    { outcome: "Accepted", reported: reportedWindow(windows), windows, retryAfter: undefined },
    nextState(1, 0, bannedUntil)
  ]
}
