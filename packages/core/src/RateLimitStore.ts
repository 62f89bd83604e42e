/**
 * The storage port for rate-limit counters and bans: `modify` replaces one
 * subject's state atomically across processes (record 0010); `get` reads it.
 *
 * @since 1.0.0
 */
import type { Effect } from "effect"
import { Context } from "effect"
import type { StoreError } from "./StoreError.js"

/**
 * The counters of one subject (an API key, a client address); instants in epoch ms.
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
  /** Runs the pure `f` on the subject's state and stores what it returns, atomically (it may run more than once). */
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
