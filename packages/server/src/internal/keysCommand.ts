/**
 * `animal-store keys create|list|revoke`: keys on the store of `--store`. A
 * new key is printed once (alone on stdout, its details on stderr); secrets never.
 */
import type { ApiKey } from "@animal-store/core"
import { AccessConfig, ApiKeyAuth } from "@animal-store/core"
import * as Args from "@effect/cli/Args"
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import { Console, type Context, Effect, Either, Option, Redacted } from "effect"
import * as KeyProvisioning from "../KeyProvisioning.js"
import * as StandaloneServer from "../StandaloneServer.js"
import type * as StoreLocation from "../StoreLocation.js"
import { CliError, refused, serveFlags, setting, store, storeFailure } from "./cliOptions.js"
import * as Settings from "./settings.js"

/** The services of core on `location`, for a `keys` command; a failure names the store. */
const withKeys = <A, E extends { readonly message: string }>(
  location: StoreLocation.StoreLocation,
  use: (auth: Context.Tag.Service<ApiKeyAuth.ApiKeyAuth>) => Effect.Effect<A, E | CliError>,
  environment?: ApiKey.Environment
): Effect.Effect<A, CliError> =>
  Effect.flatMap(ApiKeyAuth.ApiKeyAuth, use).pipe(
    Effect.provide(StandaloneServer.layerServices(location, environment === undefined ? {} : { environment })),
    Effect.mapError((error) => error instanceof CliError ? error : storeFailure(location)(error))
  )

const limit = Settings.integerIn(1, Number.MAX_SAFE_INTEGER)

const limits = Options.all({
  perMinute: setting("per-minute", { value: "N", about: "an enterprise key's requests a minute", decode: limit }).pipe(
    Options.optional
  ),
  perDay: setting("per-day", { value: "N", about: "an enterprise key's requests a day", decode: limit }).pipe(
    Options.optional
  )
}).pipe(Options.mapEffect(({ perDay, perMinute }) =>
  Option.isNone(perMinute) && Option.isNone(perDay)
    ? Either.right(undefined)
    : Option.isSome(perMinute) && Option.isSome(perDay)
    ? Either.right({ perMinute: perMinute.value, perDay: perDay.value })
    : Either.left(refused("--per-minute: --per-minute and --per-day go together"))
))

const keysCreate = Command.make("create", {
  store,
  plan: setting("plan", {
    value: KeyProvisioning.planNames.replace(/, | or /g, "|"),
    about: `the key's plan: ${KeyProvisioning.planNames} (enterprise with --per-minute and --per-day)`,
    decode: (text) =>
      KeyProvisioning.isPlan(text)
        ? Either.right(text)
        : Either.left(`expected ${KeyProvisioning.planNames}, got "${text}"`)
  }),
  limits,
  environment: setting("env", {
    variable: serveFlags.env,
    value: "production|staging",
    about: "the key's environment",
    fallback: AccessConfig.defaults.environment,
    decode: Settings.environment
  }).pipe(Options.optional)
}, (options) =>
  withKeys(
    options.store,
    (auth) =>
      auth.issue({ plan: options.plan, limits: options.limits, environment: Option.getOrUndefined(options.environment) }).pipe(
        Effect.catchTag("InvalidRequest", (error) => Effect.fail(new CliError({ message: error.message }))),
        Effect.tap(({ key, secret }) =>
          Effect.andThen(
            Console.log(Redacted.value(secret)),
            Console.error(
              `Created key ${key.id} (${key.plan}, ${key.environment}). This is the only time the key is shown.`
            )
          )
        )
      ),
    Option.getOrUndefined(options.environment)
  )).pipe(Command.withDescription("Issue a key and print it, this once"))

const describeKey = (key: ApiKey.ApiKey): ReadonlyArray<string> => [
  key.id,
  `${key.prefix}...`,
  key.plan,
  `${key.limits.perMinute}/min ${key.limits.perDay}/day`,
  key.environment,
  Option.isSome(key.revokedAt) ? `revoked ${key.revokedAt.value.toISOString()}` : "active",
  key.createdAt.toISOString()
]

const table = (header: ReadonlyArray<string>, rows: ReadonlyArray<ReadonlyArray<string>>): string => {
  const widths = header.map((title, i) => Math.max(title.length, ...rows.map((row) => row[i]!.length)))
  return [header, ...rows].map((row) => row.map((cell, i) => cell.padEnd(widths[i]!)).join("  ").trimEnd()).join(
    "\n"
  )
}

const keysList = Command.make("list", { store }, ({ store }) =>
  withKeys(store, (auth) =>
    Effect.flatMap(auth.list, (keys) =>
      Console.log(
        keys.length === 0
          ? "No keys."
          : table(["ID", "PREFIX", "PLAN", "LIMITS", "ENVIRONMENT", "STATE", "CREATED"], keys.map(describeKey))
      )))).pipe(Command.withDescription("List the keys (never their secrets)"))

const keysRevoke = Command.make("revoke", { store, id: Args.text({ name: "id" }) }, ({ id, store }) =>
  withKeys(store, (auth) =>
    Effect.flatMap(
      auth.revoke(id),
      Option.match({
        onNone: () => Effect.fail(new CliError({ message: `no key with id "${id}"` })),
        onSome: (key) => Console.log(`Revoked key ${key.id}.`)
      })
    ))).pipe(Command.withDescription("Revoke a key"))

/** `keys` and its commands. */
export const command = Command.make("keys").pipe(
  Command.withDescription("Manage the keys of a store"),
  Command.withSubcommands([keysCreate, keysList, keysRevoke])
)
