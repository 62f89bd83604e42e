/**
 * The settings of the access rules: the environment this process serves,
 * the ban policy and the limit on requests without a valid key.
 *
 * @since 1.0.0
 */
import { Config, ConfigError, Context, Either, Layer } from "effect"
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
  /** Addresses without a valid key whose counts are kept in memory (least recently seen forgotten). */
  readonly anonymousAddresses: number
}

/**
 * @since 1.0.0
 * @category constants
 */
export const defaults: AccessSettings = {
  environment: "production",
  banAfter: 10,
  banSeconds: 900,
  anonymousPerMinute: 60,
  anonymousAddresses: 100_000
}

/**
 * @since 1.0.0
 * @category tags
 */
export class AccessConfig extends Context.Tag("@animal-store/core/AccessConfig")<AccessConfig, AccessSettings>() {}

/**
 * A layer of the given settings, the others taken from `defaults`.
 *
 * @since 1.0.0
 * @category layers
 */
export const layer = (settings?: Partial<AccessSettings>): Layer.Layer<AccessConfig> =>
  Layer.succeed(AccessConfig, { ...defaults, ...settings })

const refused = (reason: string) => Either.left(ConfigError.InvalidData([], reason))

const positiveInteger = (name: string, fallback: number): Config.Config<number> =>
  Config.string(name).pipe(
    Config.mapOrFail((text) =>
      /^[0-9]+$/.test(text) && Number(text) >= 1 && Number.isSafeInteger(Number(text))
        ? Either.right(Number(text))
        : refused(`expected a positive integer, got "${text}"`)
    ),
    Config.withDefault(fallback)
  )

/**
 * The environment served, from `ANIMAL_STORE_ENV`, without a default.
 *
 * @since 1.0.0
 * @category config
 */
export const environment: Config.Config<Environment> = Config.string("ANIMAL_STORE_ENV").pipe(
  Config.mapOrFail((text) =>
    text === "production" || text === "staging"
      ? Either.right<Environment>(text)
      : refused(`expected production or staging, got "${text}"`)
  )
)

/**
 * The settings from `ANIMAL_STORE_ENV`, `ANIMAL_STORE_BAN_AFTER`, `ANIMAL_STORE_BAN_SECONDS`,
 * `ANIMAL_STORE_ANONYMOUS_PER_MINUTE` and `ANIMAL_STORE_ANONYMOUS_ADDRESSES`, each defaulting to `defaults`.
 *
 * @since 1.0.0
 * @category config
 */
export const config: Config.Config<AccessSettings> = Config.all({
  environment: environment.pipe(Config.withDefault(defaults.environment)),
  banAfter: positiveInteger("ANIMAL_STORE_BAN_AFTER", defaults.banAfter),
  banSeconds: positiveInteger("ANIMAL_STORE_BAN_SECONDS", defaults.banSeconds),
  anonymousPerMinute: positiveInteger("ANIMAL_STORE_ANONYMOUS_PER_MINUTE", defaults.anonymousPerMinute),
  anonymousAddresses: positiveInteger("ANIMAL_STORE_ANONYMOUS_ADDRESSES", defaults.anonymousAddresses)
})

/**
 * The settings read with `config` from the `ConfigProvider`.
 *
 * @since 1.0.0
 * @category layers
 */
export const layerConfig: Layer.Layer<AccessConfig, ConfigError.ConfigError> = Layer.effect(AccessConfig, config)
