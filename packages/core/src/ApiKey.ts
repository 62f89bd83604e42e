/**
 * API keys as stored (never the secret), the environments they belong to,
 * and the `Principal` an authenticated request acts as.
 *
 * @since 1.0.0
 */
import { Schema } from "effect"
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
 * A stored API key: its id, the first characters of its secret for display,
 * the digest the secret is found by, its plan and limits, and its state.
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
  revokedAt: Schema.OptionFromSelf(Schema.DateFromSelf)
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
}
