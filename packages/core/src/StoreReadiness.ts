/**
 * Whether the store answers now: the port behind the readiness probe (record 0027).
 *
 * @since 1.0.0
 */
import { Context, Effect, Layer } from "effect"
import type { StoreError } from "./StoreError.js"

/**
 * @since 1.0.0
 * @category models
 */
export interface StoreReadinessService {
  /** Succeeds when the store answered a trivial query; fails with its `StoreError` otherwise. */
  readonly check: Effect.Effect<void, StoreError>
}

/**
 * @since 1.0.0
 * @category tags
 */
export class StoreReadiness extends Context.Tag("@animal-store/core/StoreReadiness")<
  StoreReadiness,
  StoreReadinessService
>() {}

/**
 * The readiness of a store whose `check` is `check`.
 *
 * @since 1.0.0
 * @category constructors
 */
export const make = (check: Effect.Effect<void, StoreError>): StoreReadinessService => ({ check })

/**
 * A layer of the readiness `check`.
 *
 * @since 1.0.0
 * @category layers
 */
export const layer = (check: Effect.Effect<void, StoreError>): Layer.Layer<StoreReadiness> =>
  Layer.succeed(StoreReadiness, make(check))

/**
 * The readiness of a store that is always ready (in the process's memory).
 *
 * @since 1.0.0
 * @category constants
 */
export const alwaysReady: StoreReadinessService = make(Effect.void)

/**
 * A layer of `alwaysReady`.
 *
 * @since 1.0.0
 * @category layers
 */
export const layerAlwaysReady: Layer.Layer<StoreReadiness> = Layer.succeed(StoreReadiness, alwaysReady)
