/**
 * When the client sends a request again, as a `Schedule` over the refusals it
 * gets (record 0024): never before `Retry-After`, then an exponential backoff
 * with jitter, at most `maxAttempts` attempts in all.
 *
 * @since 1.0.0
 */
import { Duration, Schedule } from "effect"

/**
 * @since 1.0.0
 * @category models
 */
export interface RetryPolicy {
  /** Attempts in all, the first included (1 = never retry). */
  readonly maxAttempts: number
  /** The backoff of the first retry, in milliseconds. */
  readonly baseDelayMillis: number
  /** The longest backoff, in milliseconds (`Retry-After` comes on top). */
  readonly maxDelayMillis: number
  /** The share of a backoff taken off at random, from 0 (none) to 0.5. */
  readonly jitter: number
}

/**
 * 5 attempts, backoffs of 250 ms, 500 ms, 1 s, 2 s (each up to 20% shorter), at most 30 s.
 *
 * @since 1.0.0
 * @category constants
 */
export const defaults: RetryPolicy = {
  maxAttempts: 5,
  baseDelayMillis: 250,
  maxDelayMillis: 30_000,
  jitter: 0.2
}

/**
 * `defaults` with `options` over them, checked.
 *
 * @since 1.0.0
 * @category constructors
 */
export const make = (options?: Partial<RetryPolicy>): RetryPolicy => {
  const policy = { ...defaults, ...options }
  if (!Number.isSafeInteger(policy.maxAttempts) || policy.maxAttempts < 1) {
    throw new RangeError(`maxAttempts must be an integer of at least 1, got ${policy.maxAttempts}`)
  }
  for (const name of ["baseDelayMillis", "maxDelayMillis"] as const) {
    if (!Number.isFinite(policy[name]) || policy[name] < 0) {
      throw new RangeError(`${name} must be a finite number of milliseconds, not negative, got ${policy[name]}`)
    }
  }
  if (!(policy.jitter >= 0 && policy.jitter <= 0.5)) {
    throw new RangeError(`jitter must be from 0 to 0.5, got ${policy.jitter}`)
  }
  return policy
}

/**
 * What the schedule reads of a failed attempt: the server's `Retry-After`, 0 when none.
 *
 * @since 1.0.0
 * @category models
 */
export interface Refusal {
  readonly retryAfterMillis: number
}

/**
 * The retries of `policy`: `Retry-After` plus the backoff less its random part,
 * at most `maxAttempts - 1` times. Its output is the refusal.
 *
 * @since 1.0.0
 * @category schedules
 */
export const schedule = (policy: RetryPolicy): Schedule.Schedule<Refusal, Refusal> =>
  Schedule.exponential(Duration.millis(policy.baseDelayMillis), 2).pipe(
    Schedule.modifyDelay((_, backoff) => Duration.min(backoff, Duration.millis(policy.maxDelayMillis))),
    Schedule.jitteredWith({ min: 1 - policy.jitter, max: 1 }),
    Schedule.intersect(Schedule.recurs(policy.maxAttempts - 1)),
    Schedule.zipRight(Schedule.identity<Refusal>()),
    Schedule.addDelay((refusal) => Duration.millis(Math.max(0, refusal.retryAfterMillis)))
  )
