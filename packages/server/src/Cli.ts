/**
 * The `animal-store` command line (decisions.md "Running it"), on @effect/cli:
 *
 * - `serve`: the standalone server. Each flag falls back to its environment
 *   variable (an empty variable is unset); the flag wins.
 * - `keys create|list|revoke`: keys on the store of `--store`. A new key is
 *   printed once (alone on stdout, its details on stderr); secrets never.
 *
 * A command line that cannot run prints one line on stderr and fails, never a
 * stack trace. `--help` on every command, `--version`.
 *
 * @since 1.0.0
 */
import type { ApiKey } from "@animal-store/core"
import { AccessConfig, ApiKeyAuth } from "@animal-store/core"
import * as Args from "@effect/cli/Args"
import type * as CliApp from "@effect/cli/CliApp"
import * as Command from "@effect/cli/Command"
import * as HelpDoc from "@effect/cli/HelpDoc"
import * as Options from "@effect/cli/Options"
import * as ValidationError from "@effect/cli/ValidationError"
import * as Doc from "@effect/printer/Doc"
import { Config, ConfigProvider, Console, Context, Data, Effect, Either, Layer, Option, Redacted } from "effect"
import * as HeapPolicy from "./internal/heapPolicy.js"
import * as JsonLines from "./internal/jsonLines.js"
import * as Settings from "./internal/settings.js"
import * as KeyProvisioning from "./KeyProvisioning.js"
import * as StandaloneServer from "./StandaloneServer.js"
import * as StoreLocation from "./StoreLocation.js"

/**
 * The environment variables read, by name.
 *
 * @since 1.0.0
 * @category models
 */
export type Env = Readonly<Record<string, string | undefined>>

/**
 * A command line that cannot run: the one line to print.
 *
 * @since 1.0.0
 * @category errors
 */
export class CliError extends Data.TaggedError("CliError")<{ readonly message: string }> {}

/**
 * The version `--version` prints (the package's).
 *
 * @since 1.0.0
 * @category constants
 */
export const version = "1.0.0"

/**
 * The defaults of `serve` that are the command line's own (the others are
 * the store's and core's: `StoreLocation.defaultLocation`,
 * `AccessConfig.defaults`).
 *
 * @since 1.0.0
 * @category constants
 */
export const serveDefaults = { port: 8080, host: "127.0.0.1" } as const

/**
 * The flags of `serve` and their environment variables.
 *
 * @since 1.0.0
 * @category constants
 */
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
  "base-url": "ANIMAL_STORE_BASE_URL",
  "staging-base-url": "ANIMAL_STORE_STAGING_BASE_URL",
  "trusted-proxies": "ANIMAL_STORE_TRUSTED_PROXIES",
  "cors-origins": "ANIMAL_STORE_CORS_ORIGINS",
  "cursor-secret": "ANIMAL_STORE_CURSOR_SECRET",
  "access-log": "ANIMAL_STORE_ACCESS_LOG"
} as const

/**
 * The configuration the flags fall back to: `env`, an empty variable being
 * unset.
 *
 * @since 1.0.0
 * @category constructors
 */
export const configProvider = (env: Env): ConfigProvider.ConfigProvider =>
  ConfigProvider.fromMap(
    new Map(Object.entries(env).filter((entry): entry is [string, string] => entry[1] !== undefined && entry[1] !== ""))
  )

const refused = (message: string) => ValidationError.invalidValue(HelpDoc.p(message))

/**
 * A flag's text, else its variable's (when it has one), decoded by `decode`;
 * a refusal names the flag. Its help says what it is, its variable and its default.
 */
const setting = <A>(flag: string, options: {
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
const serveSetting = <A>(
  flag: keyof typeof serveFlags,
  options: { readonly value: string; readonly about: string; readonly fallback: string; readonly decode: Settings.Decode<A> }
): Options.Options<A> => setting(flag, { ...options, variable: serveFlags[flag] })

const store = serveSetting("store", {
  value: "memory|sqlite:<path>|postgres://user:password@host:port/db",
  about: "the store",
  fallback: StoreLocation.format(StoreLocation.defaultLocation),
  decode: StoreLocation.parse
}).pipe(Options.withDefault(StoreLocation.defaultLocation))

const environment = serveSetting("env", {
  value: "production|staging",
  about: "the environment served",
  fallback: AccessConfig.defaults.environment,
  decode: Settings.environment
})

/** The keys of `ANIMAL_STORE_API_KEYS` (a variable only: keys stay off command lines). */
const provisionedKeys = Config.option(Config.string(KeyProvisioning.variable)).pipe(
  Effect.mapError((error) => refused(String(error))),
  Effect.flatMap((value) =>
    Either.mapLeft(KeyProvisioning.parse(Option.getOrUndefined(value)), (error) => refused(error.message))
  )
)

/**
 * The options of `serve`: its flags, each over its variable, and the keys
 * of `ANIMAL_STORE_API_KEYS`.
 *
 * @since 1.0.0
 * @category options
 */
export const serveOptions: Options.Options<StandaloneServer.Options> = Options.all({
  port: serveSetting("port", {
    value: "N",
    about: "the port to listen on",
    fallback: String(serveDefaults.port),
    decode: Settings.integerIn(0, 65_535)
  }).pipe(Options.withDefault(serveDefaults.port)),
  host: serveSetting("host", {
    value: "H",
    about: "the address to listen on",
    fallback: serveDefaults.host,
    decode: Either.right
  }).pipe(Options.withDefault(serveDefaults.host)),
  store,
  maxConnections: serveSetting("pool-size", {
    value: "N",
    about: "PostgreSQL connections per process",
    fallback: "10",
    decode: Settings.integerIn(1, 1_000)
  }).pipe(Options.optional),
  statementTimeout: serveSetting("statement-timeout", {
    value: "MS",
    about: "PostgreSQL statement timeout, 0 for none",
    fallback: "5000",
    decode: Settings.integerIn(0, 86_400_000)
  }).pipe(Options.optional),
  environment: environment.pipe(Options.withDefault(AccessConfig.defaults.environment)),
  banAfter: serveSetting("ban-after", {
    value: "N",
    about: "refused requests answered rate_limited before a ban",
    fallback: String(AccessConfig.defaults.banAfter),
    decode: Settings.positiveInteger
  }).pipe(Options.withDefault(AccessConfig.defaults.banAfter)),
  banSeconds: serveSetting("ban-seconds", {
    value: "N",
    about: "length of a ban in seconds",
    fallback: String(AccessConfig.defaults.banSeconds),
    decode: Settings.positiveInteger
  }).pipe(Options.withDefault(AccessConfig.defaults.banSeconds)),
  anonymousPerMinute: serveSetting("anonymous-per-minute", {
    value: "N",
    about: "requests a minute per address without a valid key",
    fallback: String(AccessConfig.defaults.anonymousPerMinute),
    decode: Settings.positiveInteger
  }).pipe(Options.withDefault(AccessConfig.defaults.anonymousPerMinute)),
  production: serveSetting("base-url", {
    value: "URL",
    about: "production base address, in the OpenAPI document, Location and Link",
    fallback: "the address listened on, http://<host>:<port>/v1",
    decode: Settings.httpUrl
  }).pipe(Options.optional),
  staging: serveSetting("staging-base-url", {
    value: "URL",
    about: "staging base address",
    fallback: "the address listened on",
    decode: Settings.httpUrl
  }).pipe(Options.optional),
  trustedProxies: serveSetting("trusted-proxies", {
    value: "A,B",
    about: "proxies whose X-Forwarded-For is believed",
    fallback: "none",
    decode: Settings.list
  }).pipe(Options.withDefault([])),
  corsOrigins: serveSetting("cors-origins", {
    value: "O,P|*",
    about: "origins allowed by CORS",
    fallback: "none: CORS off",
    decode: Settings.origins
  }).pipe(Options.withDefault([])),
  cursorSecret: serveSetting("cursor-secret", {
    value: "S",
    about: "seals listing cursors in place of the store's own secret (kept in the SQLite or PostgreSQL " +
      "database, shared by its processes); at least 32 characters",
    fallback: "the store's",
    decode: Settings.secret
  }).pipe(Options.optional),
  accessLog: serveSetting("access-log", {
    value: "on|off",
    about: "one JSON line per request",
    fallback: "on",
    decode: Settings.onOff
  }).pipe(Options.withDefault(true))
}).pipe(Options.mapEffect((settings) =>
  Effect.map(provisionedKeys, (keys): StandaloneServer.Options => ({
    host: settings.host,
    port: settings.port,
    // Only a PostgreSQL store has a pool and statements: the settings are ignored otherwise.
    store: settings.store._tag === "Postgres"
      ? {
        ...settings.store,
        maxConnections: Option.getOrUndefined(settings.maxConnections),
        statementTimeout: Option.getOrUndefined(settings.statementTimeout)
      }
      : settings.store,
    access: {
      environment: settings.environment,
      banAfter: settings.banAfter,
      banSeconds: settings.banSeconds,
      anonymousPerMinute: settings.anonymousPerMinute
    },
    keys,
    servers: {
      ...(Option.isSome(settings.production) ? { production: settings.production.value } : {}),
      ...(Option.isSome(settings.staging) ? { staging: settings.staging.value } : {})
    },
    trustedProxies: settings.trustedProxies,
    corsOrigins: settings.corsOrigins,
    cursorSecret: Option.getOrUndefined(settings.cursorSecret),
    accessLog: settings.accessLog
  }))
))

const storeFailure = (location: StoreLocation.StoreLocation) => (error: { readonly message: string }) =>
  new CliError({ message: `cannot use the store ${StoreLocation.format(location)}: ${error.message}` })

/**
 * What `serve` sets on the process while it serves: V8's heap policy
 * (`internal/heapPolicy.ts`), and SIGINT/SIGTERM listeners that keep a second
 * signal (a terminal's Ctrl-C reaches the parent too, which may forward it)
 * from cutting the graceful shutdown short.
 */
const processPolicy = Layer.scopedDiscard(Effect.acquireRelease(
  Effect.sync(() => {
    const restoreHeap = HeapPolicy.apply()
    const ignore = () => {}
    process.on("SIGINT", ignore).on("SIGTERM", ignore)
    return () => {
      process.off("SIGINT", ignore).off("SIGTERM", ignore)
      restoreHeap()
    }
  }),
  (release) => Effect.sync(release)
))

/** The server until interrupted; the access log goes to stdout's JSON lines, in the logger's format. */
const serve = (options: StandaloneServer.Options): Effect.Effect<void, CliError> =>
  Layer.launch(Layer.merge(
    processPolicy,
    StandaloneServer.layer({ ...options, accessLog: options.accessLog === false ? false : JsonLines.accessLog() })
  )).pipe(
    Effect.catchTags({
      StoreError: (error) => Effect.fail(storeFailure(options.store)(error)),
      ServeError: (error) =>
        Effect.fail(
          new CliError({
            message: `cannot listen on ${options.host}:${options.port}: ${
              error.cause instanceof Error ? error.cause.message : String(error.cause)
            }`
          })
        ),
      ProvisioningError: (error) => Effect.fail(new CliError({ message: error.message }))
    }),
    Effect.provide(JsonLines.layer)
  )

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

const command = Command.make("animal-store").pipe(
  Command.withDescription("The Animal Store server and its keys"),
  Command.withSubcommands([
    Command.make("serve", { options: serveOptions }, ({ options }) => serve(options)).pipe(
      Command.withDescription(
        `Run the HTTP server; ${KeyProvisioning.variable} provisions keys at start: ` +
          "<key>:<plan> or <key>:enterprise:<perMinute>:<perDay>, comma-separated"
      )
    ),
    Command.make("keys").pipe(
      Command.withDescription("Manage the keys of a store"),
      Command.withSubcommands([keysCreate, keysList, keysRevoke])
    )
  ])
)

/** A document's text without its styles. */
const plainText = (doc: HelpDoc.HelpDoc): string =>
  Doc.render(Doc.unAnnotate(HelpDoc.toAnsiDoc(doc)), { style: "pretty" })

/** The one line of a refused command line. */
const refusal = (error: ValidationError.ValidationError, argv: ReadonlyArray<string>): string => {
  if (ValidationError.isCommandMismatch(error)) {
    const flag = argv.findIndex((arg) => arg.startsWith("-"))
    const words = (flag === -1 ? argv : argv.slice(0, Math.max(1, flag))).join(" ")
    return `unknown command "${words}" (serve, keys create, keys list or keys revoke); see --help`
  }
  return plainText(error.error).split("\n").find((line) => line.trim() !== "")?.trim() ??
    "invalid command line; see --help"
}

/**
 * Parses and runs a command line (without the program name) with the flags'
 * variables read from `env`. A refusal or a failure prints one line on
 * stderr and fails with the `CliError` (so the process exits non-zero,
 * without a trace).
 *
 * @since 1.0.0
 * @category constructors
 */
export const run = (argv: ReadonlyArray<string>, env: Env): Effect.Effect<void, CliError, CliApp.CliApp.Environment> =>
  Effect.consoleWith((console) =>
    Command.run(
      // The commands print on the console `run` was given...
      Command.transformHandler(command, (handler) => Effect.withConsole(handler, console)),
      { name: "animal-store", version }
    )(["node", "animal-store", ...(argv[0] === "help" ? [...argv.slice(1), "--help"] : argv)]).pipe(
      // ... and @effect/cli's own report of a refused command line is replaced by the one line below.
      Effect.withConsole({ ...console, error: () => Effect.void }),
      Effect.withConfigProvider(configProvider(env)),
      Effect.catchIf(ValidationError.isValidationError, (error) => Effect.fail(new CliError({ message: refusal(error, argv) }))),
      Effect.catchAllDefect((defect) =>
        Effect.fail(new CliError({ message: `unexpected error: ${defect instanceof Error ? defect.message : String(defect)}` }))
      ),
      Effect.tapError((error) => console.error(`animal-store: ${error.message}`))
    )
  )
