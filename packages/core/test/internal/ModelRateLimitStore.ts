/**
 * The reference behaviour of a `RateLimitStore`: an immutable map of states
 * replaced with `Ref.modify`. It is the store under core's own tests of the
 * access rules.
 *
 * @since 1.0.0
 */
import { Effect, Layer, Ref } from "effect"
import type { RateLimitState, RateLimitStoreService } from "../../src/RateLimitStore.js"
import { RateLimitStore } from "../../src/RateLimitStore.js"

/**
 * @since 1.0.0
 */
export const make: Effect.Effect<RateLimitStoreService> = Effect.map(
  Ref.make<ReadonlyMap<string, RateLimitState>>(new Map()),
  (ref) => ({
    modify: (subject, f) =>
      Ref.modify(ref, (states) => {
        const [result, next] = f(states.get(subject))
        return [result, new Map(states).set(subject, next)]
      }),
    get: (subject) => Effect.map(Ref.get(ref), (states) => states.get(subject))
  })
)

/**
 * @since 1.0.0
 */
export const layer: Layer.Layer<RateLimitStore> = Layer.effect(RateLimitStore, make)
