/**
 * The rule of decisions.md "Rate limits" as one pure step, `decide`, that
 * every `RateLimitStore` runs atomically on a subject's state.
 * @internal
 */
import { Array as Arr } from "effect"
import type { RateLimitDecision, RateLimitWindow } from "../PlanRateLimiter.js"
import type { RateLimitState } from "../RateLimitStore.js"
import * as Sliding from "./slidingWindow.js"

/**
 * A UTC window and the requests it allows. A `sliding` minute also counts the
 * previous minute, weighted by the share of it still inside the last 60 seconds.
 * @internal
 */
export interface WindowLimit {
  readonly name: RateLimitWindow["name"]
  readonly limit: number
  readonly sliding?: boolean | undefined
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

/** The length of each window, in seconds. */
const windowSeconds: { readonly [N in WindowLimit["name"]]: number } = {
  minute: 60,
  day: 86_400
}

interface Counter {
  readonly start: number
  readonly count: number
  /** The count of the minute before `start` (minutes only). */
  readonly previous: number
}

/**
 * The counter of the window holding `now`. A stored window that starts later
 * than `now`'s (a process whose clock is behind) is kept, so a shared store
 * never forgets counted requests.
 */
const current = (state: RateLimitState | undefined, name: WindowLimit["name"], now: number): Counter => {
  const length = windowSeconds[name] * 1000
  const start = Math.floor(now / length) * length
  if (state === undefined) return { start, count: 0, previous: 0 }
  return name === "minute"
    ? state.minuteStart >= start
      ? { start: state.minuteStart, count: state.minuteCount, previous: state.previousMinuteCount }
      : { start, count: 0, previous: state.minuteStart === start - length ? state.minuteCount : 0 }
    : state.dayStart >= start
    ? { start: state.dayStart, count: state.dayCount, previous: 0 }
    : { start, count: 0, previous: 0 }
}

/** Requests `window` allows at `now` beyond those counted in `counter`. */
const roomOf = (window: WindowLimit, counter: Counter, now: number): number =>
  window.sliding === true ? Sliding.room(window.limit, counter, now) : window.limit - counter.count

/**
 * The instant `window` next allows more than `k - 1` requests at once: a fixed
 * window's end once full, a sliding minute's from its weighted count.
 */
const allowsAt = (window: WindowLimit, counter: Counter, now: number, k: number): number =>
  window.sliding === true ? Sliding.allowsAt(window.limit, counter, now, k) : resetOf(window.name, counter)

const resetOf = (name: WindowLimit["name"], counter: Counter): number => counter.start + windowSeconds[name] * 1000

const secondsUntil = (instant: number, now: number): number => Math.ceil((instant - now) / 1000)

/** The window to report: fewest remaining; on a tie, the later reset. */
const reportedWindow = (windows: Arr.NonEmptyReadonlyArray<RateLimitWindow>): RateLimitWindow => {
  let best = windows[0]
  for (let i = 1; i < windows.length; i++) {
    const window = windows[i]!
    if (window.remaining < best.remaining || (window.remaining === best.remaining && window.reset >= best.reset)) {
      best = window
    }
  }
  return best
}

/**
 * The rate-limit rule, as the pure step a `RateLimitStore` runs atomically:
 * from the subject's state at `now` (Unix epoch milliseconds), the decision
 * on one request and the next state.
 *
 * - While banned (`now < bannedUntil`): `Banned`, counted nowhere.
 * - A window is full when it allows no more request at `now`: a fixed one
 *   once it counts its limit, a sliding minute once its weighted count plus
 *   one exceeds the limit.
 * - Else, if any window is full: refused and numbered (`refusedCount + 1`);
 *   a number beyond `banAfter` starts a ban of `banSeconds` (`Banned`) and
 *   restarts the numbering, otherwise `RateLimited` until the latest reset
 *   among the full windows (for a sliding minute, the instant its weighted
 *   count has fallen enough). Counted in no window.
 * - Else accepted: counted in both windows (a subject whose rules have no day
 *   window keeps a day count that no rule reads), numbering of refusals restarts.
 * - A `Banned` decision lasts until the later of the ban's end and the latest
 *   reset among the full windows, so a client that waits its `Retry-After` is
 *   accepted; it reports every window with nothing remaining and resetting
 *   then (whole seconds, rounded up), so the headers agree with `Retry-After`.
 * - Otherwise each window reports what it allows now (`remaining`) and the
 *   instant from which it allows more (`reset`, whole seconds rounded up):
 *   a fixed window's end, or when a sliding minute next allows one more.
 *
 * @internal
 */
export const decide = (rules: RateLimitRules, now: number) =>
(state: RateLimitState | undefined): readonly [RateLimitDecision, RateLimitState] => {
  const minute = current(state, "minute", now)
  const day = current(state, "day", now)
  const refusedCount = state?.refusedCount ?? 0
  const bannedUntil = state?.bannedUntil ?? 0

  let full = false
  let latestFullReset = 0
  for (const window of rules.windows) {
    const counter = window.name === "minute" ? minute : day
    if (roomOf(window, counter, now) < 1) {
      full = true
      latestFullReset = Math.max(latestFullReset, allowsAt(window, counter, now, 1))
    }
  }

  let outcome: RateLimitDecision["outcome"]
  let consumed = 0
  let refused = refusedCount
  let banEnd = bannedUntil
  let until = 0
  if (now < bannedUntil) {
    outcome = "Banned"
    until = Math.max(bannedUntil, latestFullReset)
  } else if (full) {
    refused = refusedCount + 1
    if (rules.ban !== undefined && refused > rules.ban.banAfter) {
      outcome = "Banned"
      refused = 0
      banEnd = now + rules.ban.banSeconds * 1000
      until = Math.max(banEnd, latestFullReset)
    } else {
      outcome = "RateLimited"
      until = latestFullReset
    }
  } else {
    outcome = "Accepted"
    consumed = 1
    refused = 0
  }

  // While banned, every window agrees with `Retry-After`.
  const banned = outcome === "Banned"
  const banReset = Math.ceil(until / 1000)
  const inForce = Arr.map(rules.windows, (window): RateLimitWindow => {
    const counted = window.name === "minute" ? minute : day
    const counter = { ...counted, count: counted.count + consumed }
    const remaining = banned ? 0 : Math.max(0, roomOf(window, counter, now))
    return {
      name: window.name,
      seconds: windowSeconds[window.name],
      limit: window.limit,
      remaining,
      reset: banned ? banReset : Math.ceil(allowsAt(window, counter, now, remaining + 1) / 1000)
    }
  })
  return [
    {
      outcome,
      reported: reportedWindow(inForce),
      windows: inForce,
      retryAfter: outcome === "Accepted" ? undefined : secondsUntil(until, now)
    },
    {
      minuteStart: minute.start,
      minuteCount: minute.count + consumed,
      previousMinuteCount: minute.previous,
      dayStart: day.start,
      dayCount: day.count + consumed,
      refusedCount: refused,
      bannedUntil: banEnd
    }
  ]
}
