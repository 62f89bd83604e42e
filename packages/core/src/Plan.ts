/**
 * Plans and their rate limits.
 *
 * @since 1.0.0
 */
import { Schema } from "effect"

/**
 * @since 1.0.0
 * @category schemas
 */
export const Plan = Schema.Literal("free", "pro", "business", "enterprise")

/**
 * @since 1.0.0
 * @category models
 */
export type Plan = typeof Plan.Type

/**
 * Requests allowed per UTC minute and per UTC day.
 *
 * @since 1.0.0
 * @category schemas
 */
export const PlanLimits = Schema.Struct({
  perMinute: Schema.Int.pipe(Schema.positive()),
  perDay: Schema.Int.pipe(Schema.positive())
})

/**
 * @since 1.0.0
 * @category models
 */
export type PlanLimits = typeof PlanLimits.Type

/**
 * The limits of the fixed plans; `enterprise` limits are set per key.
 *
 * @since 1.0.0
 * @category constants
 */
export const limitsByPlan: { readonly [P in Exclude<Plan, "enterprise">]: PlanLimits } = {
  free: { perMinute: 60, perDay: 1_000 },
  pro: { perMinute: 300, perDay: 10_000 },
  business: { perMinute: 1_000, perDay: 100_000 }
}
