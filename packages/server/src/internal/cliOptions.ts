/**
 * The options the commands of `Cli` share: flags over their variables, the
 * store, and the one-line refusal.
 */
import { AccessConfig } from "@animal-store/core"
import * as HelpDoc from "@effect/cli/HelpDoc"
import * as Options from "@effect/cli/Options"
import * as ValidationError from "@effect/cli/ValidationError"
import { Config, ConfigProvider, Data, Either } from "effect"
import * as StoreLocation from "../StoreLocation.js"
import * as Settings from "./settings.js"

/** The environment variables read, by name. */
export type Env = Readonly<Record<string, string | undefined>>

/** A command line that cannot run: the one line to print. */
export class CliError extends Data.TaggedError("CliError")<{ readonly message: string }> {}

/** The defaults of `serve` that are the command line's own (the others: `StoreLocation`'s and `AccessConfig`'s). */
export const serveDefaults = { port: 8080, host: "127.0.0.1" } as const

/** The flags of `serve` and their environment variables. */
export const serveFlags = {
  "port": "PORT",
  "host": "HOST",
  "store": "ANIMAL_STORE_STORE",
  "pool-size": "ANIMAL_STORE_POOL_SIZE",
  "statement-timeout": "ANIMAL_STORE_STATEMENT_TIMEOUT",
  "env": "ANIMAL_STORE_ENV",
  "ban-after": "ANIMAL_STORE_BAN_AFTER",
  "ban-seconds": "ANIMAL_STORE_BAN_SECONDS",
  "anonymous-per-minute": "ANIMAL_STORE_ANONYMOUS_PER_MINUTE",
  "anonymous-addresses": "ANIMAL_STORE_ANONYMOUS_ADDRESSES",
  "base-url": "ANIMAL_STORE_BASE_URL",
  "staging-base-url": "ANIMAL_STORE_STAGING_BASE_URL",
  "trusted-proxies": "ANIMAL_STORE_TRUSTED_PROXIES",
  "cors-origins": "ANIMAL_STORE_CORS_ORIGINS",
  "cursor-secret": "ANIMAL_STORE_CURSOR_SECRET",
  "access-log": "ANIMAL_STORE_ACCESS_LOG",
  "ops-port": "ANIMAL_STORE_OPS_PORT",
  "ops-host": "ANIMAL_STORE_OPS_HOST",
  "workers": "ANIMAL_STORE_WORKERS"
} as const

/** The configuration the flags fall back to: `env`, an empty variable being unset. */
export const configProvider = (env: Env): ConfigProvider.ConfigProvider =>
  ConfigProvider.fromMap(
    new Map(Object.entries(env).filter((entry): entry is [string, string] => entry[1] !== undefined && entry[1] !== ""))
  )

/** A refused value, as @effect/cli reports it. */
export const refused = (message: string) => ValidationError.invalidValue(HelpDoc.p(message))

/**
 * A flag's text, else its variable's (when it has one), decoded by `decode`;
 * a refusal names the flag. Its help says what it is, its variable and its default.
 */
export const setting = <A>(flag: string, options: {
  readonly variable?: string
  readonly value: string
  readonly about: string
  readonly fallback?: string
  readonly decode: Settings.Decode<A>
}): Options.Options<A> => {
  const { about, decode, fallback, value, variable } = options
  const notes = [variable, fallback === undefined ? undefined : `default ${fallback}`].filter((note) => note !== undefined)
  const text = Options.text(flag).pipe(
    Options.withPseudoName(value),
    Options.withDescription(notes.length === 0 ? about : `${about} (${notes.join("; ")})`)
  )
  return (variable === undefined ? text : Options.withFallbackConfig(text, Config.string(variable))).pipe(
    Options.mapEffect((text) => Either.mapLeft(decode(text), (reason) => refused(`--${flag}: ${reason}`)))
  )
}

/** A flag of `serve`, with its variable. */
export const serveSetting = <A>(
  flag: keyof typeof serveFlags,
  options: { readonly value: string; readonly about: string; readonly fallback: string; readonly decode: Settings.Decode<A> }
): Options.Options<A> => setting(flag, { ...options, variable: serveFlags[flag] })

/** `--store`, its variable and the default file. */
export const store = serveSetting("store", {
  value: "memory|sqlite:<path>|postgres://user:password@host:port/db",
  about: "the store",
  fallback: StoreLocation.format(StoreLocation.defaultLocation),
  decode: StoreLocation.parse
}).pipe(Options.withDefault(StoreLocation.defaultLocation))

/** `--env`, over its variable. */
export const environment = serveSetting("env", {
  value: "production|staging",
  about: "the environment served",
  fallback: AccessConfig.defaults.environment,
  decode: Settings.environment
})

/** A store that cannot be used, as the one line to print. */
export const storeFailure = (location: StoreLocation.StoreLocation) => (error: { readonly message: string }) =>
  new CliError({ message: `cannot use the store ${StoreLocation.format(location)}: ${error.message}` })

