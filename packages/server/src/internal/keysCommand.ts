/**
 * `animal-store keys create|list|show|revoke|rotate|unban`: keys on the existing
 * store of `--store`, through core's `KeyAdministration`. A new key is printed
 * once (alone on stdout, its details on stderr, or in the `--json` document);
 * secrets never.
 */
import type { ApiError, ApiKey, StoreError } from "@animal-store/core"
import { AccessConfig, KeyAdministration } from "@animal-store/core"
import * as Args from "@effect/cli/Args"
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import { Clock, Console, Duration, Effect, Either, Option, Redacted } from "effect"
import * as KeyProvisioning from "../KeyProvisioning.js"
import * as StandaloneServer from "../StandaloneServer.js"
import * as StoreLocation from "../StoreLocation.js"
import * as CliHelp from "./cliHelp.js"
import { CliError, refused, serveFlags, setting, store, storeFailure } from "./cliOptions.js"
import * as KeyView from "./keyView.js"
import * as Settings from "./settings.js"

/**
 * Runs `use` on the key administration of the existing store at `location`;
 * a failure is one line (a missing store, an unknown key, refused options,
 * or the store's own failure, named).
 */
const withKeys = <A>(
  location: StoreLocation.StoreLocation,
  use: (
    admin: KeyAdministration.KeyAdministrationService
  ) => Effect.Effect<A, KeyAdministration.ApiKeyNotFound | ApiError.InvalidRequest | StoreError.StoreError | CliError>,
  environment?: ApiKey.Environment
): Effect.Effect<A, CliError> =>
  StoreLocation.checkExists(location).pipe(
    Effect.zipRight(
      Effect.flatMap(KeyAdministration.KeyAdministration, use).pipe(
        Effect.provide(StandaloneServer.layerServices(location, environment === undefined ? {} : { environment }))
      )
    ),
    Effect.mapError((error) =>
      error._tag === "StoreError" ? storeFailure(location)(error) : new CliError({ message: error.message })
    )
  )

const json = Options.boolean("json").pipe(Options.withDescription("print one JSON document on stdout"))

const printJson = (value: unknown) => Console.log(JSON.stringify(value, null, 2))

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
    ? perDay.value < perMinute.value
      ? Either.left(refused(`--per-day: must be at least --per-minute (${perMinute.value})`))
      : Either.right({ perMinute: perMinute.value, perDay: perDay.value })
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
  }).pipe(Options.optional),
  expiresIn: setting("expires-in", {
    value: "DURATION",
    about: "the key expires this long after now: 30d, 12h, 90m... (never unless given)",
    decode: (text) =>
      Either.flatMap(
        Settings.duration(text),
        (duration) => Duration.toMillis(duration) > 0 ? Either.right(duration) : Either.left("expected a duration above 0")
      )
  }).pipe(Options.optional),
  window: Options.choice("window", ["fixed", "sliding"]).pipe(
    Options.withDescription(
      "how the minute limit is counted: the UTC minute (fixed), or with the previous minute weighted by its share " +
        "of the last 60 seconds (sliding) (default fixed)"
    ),
    Options.optional
  ),
  json
}, (options) =>
  withKeys(
    options.store,
    (admin) =>
      Effect.flatMap(
        Effect.flatMap(Clock.currentTimeMillis, (now) =>
          admin.issue({
            plan: options.plan,
            limits: options.limits,
            environment: Option.getOrUndefined(options.environment),
            expiresAt: Option.getOrUndefined(
              Option.map(options.expiresIn, (duration) => new Date(now + Duration.toMillis(duration)))
            ),
            window: Option.getOrUndefined(options.window)
          })),
        ({ key, secret, status }) =>
          options.json
            ? printJson({ key: KeyView.viewOf(status), secret: Redacted.value(secret) })
            : Effect.andThen(
              Console.log(Redacted.value(secret)),
              Console.error(
                `Created key ${key.id} (${key.plan}, ${key.environment}). This is the only time the key is shown.`
              )
            )
      ),
    Option.getOrUndefined(options.environment)
  )).pipe(Command.withDescription("Issue a key and print it, this once"))

const usageText = (usage: KeyView.KeyView["usage"]): string => `${usage.minute}/min ${usage.day}/day`

const row = (view: KeyView.KeyView): ReadonlyArray<string> => [
  view.id,
  `${view.prefix}...`,
  view.plan,
  KeyView.limitsText(view.limits),
  view.environment,
  KeyView.stateText(view),
  view.window,
  view.expiresAt ?? "never",
  usageText(view.usage),
  view.createdAt
]

const table = (header: ReadonlyArray<string>, rows: ReadonlyArray<ReadonlyArray<string>>): string => {
  const widths = header.map((title, i) => Math.max(title.length, ...rows.map((row) => row[i]!.length)))
  return [header, ...rows].map((row) => row.map((cell, i) => cell.padEnd(widths[i]!)).join("  ").trimEnd()).join(
    "\n"
  )
}

const keysList = Command.make("list", { store, json }, ({ json, store }) =>
  withKeys(store, (admin) =>
    Effect.flatMap(admin.list, (statuses) => {
      const views = statuses.map(KeyView.viewOf)
      return json
        ? printJson({ keys: views })
        : Console.log(
          views.length === 0
            ? "No keys."
            : table(["ID", "PREFIX", "PLAN", "LIMITS", "ENVIRONMENT", "STATE", "WINDOW", "EXPIRES", "USAGE", "CREATED"], views.map(row))
        )
    }))).pipe(
    Command.withDescription("List the keys (never their secrets): state, plan, limits, this minute's and this day's usage")
  )

const id = Args.text({ name: "id" }).pipe(Args.withDescription("the key's id, as `keys list` shows it"))

const details = (view: KeyView.KeyView): string =>
  table(["id", view.id], [
    ["prefix", `${view.prefix}...`],
    ["plan", view.plan],
    ["limits", KeyView.limitsText(view.limits)],
    ["environment", view.environment],
    ["state", KeyView.stateText(view)],
    ["expires", view.expiresAt ?? "never"],
    ["window", view.window],
    ...(view.previousSecret === null
      ? []
      : [["previous secret", `${view.previousSecret.prefix}... until ${view.previousSecret.until}`]]),
    ["usage", `${usageText(view.usage)} (this minute, this day)`],
    ["created", view.createdAt]
  ])

const keysShow = Command.make("show", { store, id, json }, ({ id, json, store }) =>
  withKeys(store, (admin) =>
    Effect.flatMap(admin.show(id), (status) => {
      const view = KeyView.viewOf(status)
      return json ? printJson(view) : Console.log(details(view))
    }))).pipe(Command.withDescription("Show a key: state, plan, limits, this minute's and this day's usage"))

const keysRevoke = Command.make("revoke", { store, id, json }, ({ id, json, store }) =>
  withKeys(store, (admin) =>
    Effect.flatMap(admin.revoke(id), (status) =>
      json ? printJson(KeyView.viewOf(status)) : Console.log(`Revoked key ${status.key.id}.`)))).pipe(
    Command.withDescription("Revoke a key, every secret of it")
  )

const keysRotate = Command.make("rotate", {
  store,
  id,
  grace: setting("grace", {
    value: "DURATION",
    about: "how long the previous secret keeps working: 24h, 90m, 0 (ends it at once)",
    fallback: "24h",
    decode: Settings.duration
  }).pipe(Options.withDefault(Duration.hours(24))),
  json
}, ({ grace, id, json, store }) =>
  withKeys(store, (admin) =>
    Effect.flatMap(admin.rotate(id, grace), ({ key, secret, status }) =>
      json
        ? printJson({ key: KeyView.viewOf(status), secret: Redacted.value(secret) })
        : Effect.andThen(
          Console.log(Redacted.value(secret)),
          Console.error(
            `Rotated key ${key.id}: the previous secret works until ${
              Option.match(key.previousSecret, { onNone: () => "now", onSome: (previous) => previous.until.toISOString() })
            }. This is the only time the new secret is shown.`
          )
        )))).pipe(Command.withDescription("Issue a new secret for a key and print it, this once; the previous one works for --grace"))

const keysUnban = Command.make("unban", { store, id, json }, ({ id, json, store }) =>
  withKeys(store, (admin) =>
    Effect.flatMap(admin.unban(id), ({ lifted, status }) =>
      json
        ? printJson(KeyView.viewOf(status))
        : Console.log(lifted ? `Lifted the ban of key ${status.key.id}.` : `Key ${status.key.id} is not banned.`)))).pipe(
    Command.withDescription("Lift a key's ban")
  )

/** The commands of `keys`, for their help. */
export const helpEntries: ReadonlyArray<CliHelp.Entry> = [
  CliHelp.entry(["keys", "create"], keysCreate, false),
  CliHelp.entry(["keys", "list"], keysList, false),
  CliHelp.entry(["keys", "show"], keysShow, false),
  CliHelp.entry(["keys", "revoke"], keysRevoke, false),
  CliHelp.entry(["keys", "rotate"], keysRotate, false),
  CliHelp.entry(["keys", "unban"], keysUnban, false)
]

/** `keys` and its commands. */
export const command = Command.make("keys").pipe(
  Command.withDescription("Manage the keys of a store"),
  Command.withSubcommands([keysCreate, keysList, keysShow, keysRevoke, keysRotate, keysUnban])
)
