/**
 * What the client knows of its key's rate limits from the responses it has
 * seen, and the pacing rule on it: hold requests while the window is spent,
 * fail at once while the key is banned. Pure functions over a `Budget`.
 *
 * @since 1.0.0
 */

/**
 * The rate-limit headers of one response (`X-RateLimit-Limit`, `-Remaining`, `-Reset`).
 *
 * @since 1.0.0
 * @category models
 */
export interface RateLimit {
  readonly limit: number
  readonly remaining: number
  /** When the window resets, in Unix seconds. */
  readonly reset: number
}

/**
 * Reads a header by its lower-case name.
 *
 * @since 1.0.0
 * @category models
 */
export type HeaderReader = (name: string) => string | undefined

const nonNegativeInteger = (text: string | undefined): number | undefined => {
  if (text === undefined || !/^\d+$/.test(text.trim())) return undefined
  const value = Number(text.trim())
  return Number.isSafeInteger(value) ? value : undefined
}

/**
 * The rate-limit headers of a response, when all three are there and valid.
 *
 * @since 1.0.0
 * @category parsing
 */
export const fromHeaders = (header: HeaderReader): RateLimit | undefined => {
  const limit = nonNegativeInteger(header("x-ratelimit-limit"))
  const remaining = nonNegativeInteger(header("x-ratelimit-remaining"))
  const reset = nonNegativeInteger(header("x-ratelimit-reset"))
  return limit === undefined || remaining === undefined || reset === undefined ? undefined : { limit, remaining, reset }
}

/**
 * `Retry-After` in milliseconds (whole seconds, or an HTTP date relative to `now`); `undefined` when invalid.
 *
 * @since 1.0.0
 * @category parsing
 */
export const retryAfterMillis = (header: HeaderReader, now: number): number | undefined => {
  const text = header("retry-after")
  if (text === undefined) return undefined
  const seconds = nonNegativeInteger(text)
  if (seconds !== undefined) return seconds * 1000
  const date = Date.parse(text)
  return Number.isNaN(date) ? undefined : Math.max(0, date - now)
}

/**
 * What the client believes of its key's budget (instants in epoch ms).
 *
 * @since 1.0.0
 * @category models
 */
export interface Budget {
  /** Requests left in the window, less those sent since; `undefined` before any response told. */
  readonly remaining: number | undefined
  /** When the window resets. */
  readonly resetAt: number
  /** When the key's ban ends (0: not banned). */
  readonly bannedUntil: number
}

/**
 * Nothing known yet.
 *
 * @since 1.0.0
 * @category constants
 */
export const unknown: Budget = { remaining: undefined, resetAt: 0, bannedUntil: 0 }

/**
 * What a request may do at `now`: be sent, wait (pacing), or fail while the key is banned.
 *
 * @since 1.0.0
 * @category models
 */
export type Admission =
  | { readonly _tag: "Send" }
  | { readonly _tag: "Wait"; readonly millis: number }
  | { readonly _tag: "Banned"; readonly until: number }

const send: Admission = { _tag: "Send" }

/**
 * The pacing rule: a ban in force refuses; with `pacing`, a spent window waits for its reset.
 *
 * @since 1.0.0
 * @category rules
 */
export const admit = (budget: Budget, now: number, pacing: boolean): Admission => {
  if (now < budget.bannedUntil) return { _tag: "Banned", until: budget.bannedUntil }
  if (pacing && budget.remaining !== undefined && budget.remaining <= 0 && now < budget.resetAt) {
    return { _tag: "Wait", millis: budget.resetAt - now }
  }
  return send
}

/**
 * The budget once a request is sent at `now`: one fewer, or unknown once the window reset.
 *
 * @since 1.0.0
 * @category rules
 */
export const spend = (budget: Budget, now: number): Budget =>
  budget.remaining === undefined ? budget : now >= budget.resetAt
  ? { ...budget, remaining: undefined }
  : { ...budget, remaining: budget.remaining - 1 }

/**
 * The budget once a response is seen: its headers replace what was believed; a
 * 429 empties the window until `Retry-After`; a ban is recorded.
 *
 * @since 1.0.0
 * @category rules
 */
export const observe = (
  budget: Budget,
  response: {
    readonly rateLimit: RateLimit | undefined
    readonly code?: string | undefined
    readonly retryAfterMillis?: number | undefined
  },
  now: number
): Budget => {
  const retryAt = now + (response.retryAfterMillis ?? 0)
  if (response.code === "api_key_banned") return { remaining: 0, resetAt: retryAt, bannedUntil: retryAt }
  if (response.code === "rate_limited") {
    return { ...budget, remaining: 0, resetAt: retryAt }
  }
  return response.rateLimit === undefined
    ? budget
    : { ...budget, remaining: response.rateLimit.remaining, resetAt: response.rateLimit.reset * 1000 }
}
