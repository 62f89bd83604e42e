/**
 * The storage port for rate-limit counters and bans. `modify` reads and
 * replaces the state of one subject atomically, so every process sharing a
 * store agrees; `get` reads it for operators. The rules themselves live in
 * `PlanRateLimiter`.
 *
 * @since 1.0.0
 */
import type { Effect } from "effect"
import { Context } from "effect"
import type { StoreError } from "./StoreError.js"

/**
 * The counters of one subject: an API key in a store, a client address in
 * the limiter's memory. Instants are Unix epoch milliseconds.
 *
 * @since 1.0.0
 * @category models
 */
export interface RateLimitState {
  /** Start of the UTC minute `minuteCount` counts in. */
  readonly minuteStart: number
  readonly minuteCount: number
  /** Accepted requests of the minute before `minuteStart` (read by a sliding minute). */
  readonly previousMinuteCount: number
  /** Start of the UTC day `dayCount` counts in. */
  readonly dayStart: number
  readonly dayCount: number
  /** Refused requests since the subject was last accepted or a ban started. */
  readonly refusedCount: number
  /** End of the current ban, or 0 when none was ever started. */
  readonly bannedUntil: number
}

/**
 * @since 1.0.0
 * @category models
 */
export interface RateLimitStoreService {
  /**
   * Runs `f` on the subject's state (`undefined` when it has none) and stores
   * the state it returns, as one atomic step: no other `modify` of the same
   * subject, in this process or another sharing the store, interleaves.
   * `f` must be pure: a store may run it more than once.
   */
  readonly modify: <A>(
    subject: string,
    f: (state: RateLimitState | undefined) => readonly [A, RateLimitState]
  ) => Effect.Effect<A, StoreError>
  /** The subject's stored state (`undefined` when it has none), read without writing anything. */
  readonly get: (subject: string) => Effect.Effect<RateLimitState | undefined, StoreError>
}

/**
 * @since 1.0.0
 * @category tags
 */
export class RateLimitStore extends Context.Tag("@animal-store/core/RateLimitStore")<
  RateLimitStore,
  RateLimitStoreService
>() {}
