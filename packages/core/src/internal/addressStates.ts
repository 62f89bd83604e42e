/**
 * The rate-limit states of client addresses without a valid key, in this
 * process's memory (decisions.md: never in the store): at most `capacity`,
 * the least recently seen forgotten first.
 * @internal
 */
import { Effect } from "effect"
import type { RateLimitState } from "../RateLimitStore.js"

/** @internal */
export interface AddressStates {
  /**
   * Runs `f` on the bucket's state (`undefined` when none is held) and keeps
   * the state it returns as the most recently seen, in one step; beyond
   * `capacity` the least recently seen bucket is forgotten.
   */
  readonly modify: <A>(
    bucket: string,
    f: (state: RateLimitState | undefined) => readonly [A, RateLimitState]
  ) => Effect.Effect<A>
  /** The buckets held, least recently seen first. */
  readonly buckets: Effect.Effect<ReadonlyArray<string>>
}

/**
 * Empty states holding at most `capacity` buckets. A `Map` keeps insertion
 * order, so a bucket taken out and put back on each use is the last in it.
 * @internal
 */
export const make = (capacity: number): Effect.Effect<AddressStates> =>
  Effect.sync(() => {
    const states = new Map<string, RateLimitState>()
    return {
      modify: (bucket, f) =>
        Effect.sync(() => {
          const [result, next] = f(states.get(bucket))
          states.delete(bucket)
          states.set(bucket, next)
          if (states.size > capacity) states.delete(states.keys().next().value!)
          return result
        }),
      buckets: Effect.sync(() => Array.from(states.keys()))
    }
  })
