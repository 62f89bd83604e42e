/**
 * The rate-limit states of addresses without a valid key, in this process's
 * memory (record 0041), least recently seen forgotten first.
 * @internal
 */
import { Effect } from "effect"
import type { RateLimitState } from "../RateLimitStore.js"

/** @internal */
export interface AddressStates {
  /** Runs `f` on the bucket's state and keeps the result as the most recently seen. */
  readonly modify: <A>(
    bucket: string,
    f: (state: RateLimitState | undefined) => readonly [A, RateLimitState]
  ) => Effect.Effect<A>
  /** The buckets held, least recently seen first. */
  readonly buckets: Effect.Effect<ReadonlyArray<string>>
}

/**
 * Empty states of at most `capacity` buckets (a `Map`'s insertion order is the recency order).
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
