/**
 * API keys as stored (never the secret), the environments they belong to,
 * and the `Principal` an authenticated request acts as.
 *
 * @since 1.0.0
 */
import { Option, Schema } from "effect"
import { Plan, PlanLimits } from "./Plan.js"

/**
 * The environment a process serves and a key belongs to.
 *
 * @since 1.0.0
 * @category schemas
 */
export const Environment = Schema.Literal("production", "staging")

/**
 * @since 1.0.0
 * @category models
 */
export type Environment = typeof Environment.Type

/**
 * The readable prefix of keys of each environment.
 *
 * @since 1.0.0
 * @category constants
 */
export const keyPrefixByEnvironment: { readonly [E in Environment]: string } = {
  production: "ask_live_",
  staging: "ask_test_"
}

/**
 * How a key's minute is counted: `fixed` (the UTC minute) or `sliding` (record 0055).
 *
 * @since 1.0.0
 * @category schemas
 */
export const MinuteWindow = Schema.Literal("fixed", "sliding")

/**
 * @since 1.0.0
 * @category models
 */
export type MinuteWindow = typeof MinuteWindow.Type

/**
 * The secret a key had before its last rotation, accepted until `until` (record 0057).
 *
 * @since 1.0.0
 * @category schemas
 */
export const PreviousSecret = Schema.Struct({
  digest: Schema.String,
  prefix: Schema.String,
  until: Schema.DateFromSelf
})

/**
 * @since 1.0.0
 * @category models
 */
export type PreviousSecret = typeof PreviousSecret.Type

/**
 * A stored API key (never its secret): id, display prefix, digest, plan,
 * limits and state (record 0009).
 *
 * @since 1.0.0
 * @category schemas
 */
export class ApiKey extends Schema.Class<ApiKey>("ApiKey")({
  id: Schema.String,
  prefix: Schema.String,
  digest: Schema.String,
  plan: Plan,
  limits: PlanLimits,
  environment: Environment,
  createdAt: Schema.DateFromSelf,
  revokedAt: Schema.OptionFromSelf(Schema.DateFromSelf),
  expiresAt: Schema.optionalWith(Schema.OptionFromSelf(Schema.DateFromSelf), { default: () => Option.none() }),
  window: Schema.optionalWith(MinuteWindow, { default: () => "fixed" as const }),
  previousSecret: Schema.optionalWith(Schema.OptionFromSelf(PreviousSecret), { default: () => Option.none() })
}) {}

/**
 * Who an accepted request acts as.
 *
 * @since 1.0.0
 * @category models
 */
export interface Principal {
  readonly keyId: string
  readonly plan: Plan
  readonly limits: PlanLimits
  readonly environment: Environment
  /** How the minute is counted; `fixed` when absent. */
  readonly window?: MinuteWindow | undefined
}
