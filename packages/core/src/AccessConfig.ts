/**
 * The settings of the access rules: the environment this process serves,
 * the ban policy and the limit on requests without a valid key.
 *
 * @since 1.0.0
 */
import { Context } from "effect"
import type { Environment } from "./ApiKey.js"

/**
 * @since 1.0.0
 * @category models
 */
export interface AccessSettings {
  /** The environment served; keys of the other one are refused. */
  readonly environment: Environment
  /** Refused requests answered `rate_limited` before a ban starts. */
  readonly banAfter: number
  /** Length of a ban, in seconds. */
  readonly banSeconds: number
  /** Requests a minute per client address without a valid key. */
  readonly anonymousPerMinute: number
}

/**
 * @since 1.0.0
 * @category constants
 */
export const defaults: AccessSettings = {
  environment: "production",
  banAfter: 10,
  banSeconds: 900,
  anonymousPerMinute: 60
}

/**
 * @since 1.0.0
 * @category tags
 */
export class AccessConfig extends Context.Tag("@animal-store/core/AccessConfig")<AccessConfig, AccessSettings>() {}
