/**
 * `RateLimitStore` in memory: one map of subject states, changed atomically
 * with `Ref.modify`.
 *
 * @since 1.0.0
 */
import { RateLimitStore } from "@animal-store/core"
import { Effect, Layer, Ref } from "effect"

/**
 * @since 1.0.0
 * @category constructors
 */
export const make: Effect.Effect<RateLimitStore.RateLimitStoreService> = Effect.map(
  Ref.make(new Map<string, RateLimitStore.RateLimitState>()),
  (ref) => ({
    modify: (subject, f) =>
      Ref.modify(ref, (states) => {
        const [result, next] = f(states.get(subject))
        states.set(subject, next)
        return [result, states]
      })
  })
)

/**
 * @since 1.0.0
 * @category layers
 */
export const layer: Layer.Layer<RateLimitStore.RateLimitStore> = Layer.effect(RateLimitStore.RateLimitStore, make)
