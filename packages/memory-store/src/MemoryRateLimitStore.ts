/**
 * `RateLimitStore` in memory: `f` runs and its state is stored in one synchronous step.
 *
 * @since 1.0.0
 */
import { RateLimitStore } from "@animal-store/core"
import { Effect, Layer } from "effect"

/**
 * @since 1.0.0
 * @category constructors
 */
export const make: Effect.Effect<RateLimitStore.RateLimitStoreService> = Effect.sync(() => {
  const states = new Map<string, RateLimitStore.RateLimitState>()
  return {
    modify: (subject, f) =>
      Effect.sync(() => {
        const [result, next] = f(states.get(subject))
        states.set(subject, next)
        return result
      }),
    get: (subject) => Effect.sync(() => states.get(subject))
  }
})

/**
 * @since 1.0.0
 * @category layers
 */
export const layer: Layer.Layer<RateLimitStore.RateLimitStore> = Layer.effect(RateLimitStore.RateLimitStore, make)
