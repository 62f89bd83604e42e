/**
 * The `animal-store` command line (decisions.md "Running it"):
 *
 * - `serve`: the standalone server. Each flag has an environment variable of
 *   the same meaning; the flag wins.
 * - `keys create --plan <plan> [--per-minute N --per-day N] [--env E]`: prints
 *   a new key once (the key alone on stdout, the details on stderr);
 *   `keys list`: ids, prefixes, plans, environments and states, never
 *   secrets; `keys revoke <id>`. They act on the store of `--store`.
 *
 * Bad configuration exits non-zero with one line on stderr, never a stack trace.
 *
 * @since 1.0.0
 */
import type { ApiKey } from "@animal-store/core"
import { AccessConfig, ApiKeyAuth } from "@animal-store/core"
import { Config, Console, Data, Effect, Either, Layer, Option, Redacted } from "effect"
import * as Flags from "./internal/flags.js"
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
 * @since 1.0.0
 * @category models
 */
export type Command =
  | { readonly _tag: "Help"; readonly text: string }
  | { readonly _tag: "Serve"; readonly options: StandaloneServer.Options }
  | {
    readonly _tag: "KeysCreate"
    readonly store: StoreLocation.StoreLocation
    readonly options: ApiKeyAuth.IssueOptions
  }
  | { readonly _tag: "KeysList"; readonly store: StoreLocation.StoreLocation }
  | { readonly _tag: "KeysRevoke"; readonly store: StoreLocation.StoreLocation; readonly id: string }

/**
 * The defaults of `serve` that are the command line's own (the others are
 * the store's and core's: `StoreLocation.defaultLocation`,
 * `AccessConfig.defaults`).
 *
 * @since 1.0.0
 * @category constants
 */
export const serveDefaults = { port: 8080, host: "127.0.0.1" } as const

/** One flag of `serve`: its variable, its value's name and what the usage says of it and of its default. */
interface ServeFlag {
  readonly variable: string
  readonly value: string
  readonly help?: string
  readonly default: string
}

const serveFlagTable = {
  "port": { variable: "PORT", value: "N", default: String(serveDefaults.port) },
  "host": { variable: "HOST", value: "H", default: serveDefaults.host },
  "store": {
    variable: "ANIMAL_STORE_STORE",
    value: "S",
    help: "memory, sqlite:<path> or postgres://user:password@host:port/db",
    default: StoreLocation.format(StoreLocation.defaultLocation)
  },
  "pool-size": { variable: "ANIMAL_STORE_POOL_SIZE", value: "N", help: "PostgreSQL connections per process", default: "10" },
  "statement-timeout": {
    variable: "ANIMAL_STORE_STATEMENT_TIMEOUT",
    value: "MS",
    help: "PostgreSQL statement timeout, 0 for none",
    default: "5000"
  },
  "env": { variable: "ANIMAL_STORE_ENV", value: "E", help: "production or staging", default: AccessConfig.defaults.environment },
  "ban-after": { variable: "ANIMAL_STORE_BAN_AFTER", value: "N", default: String(AccessConfig.defaults.banAfter) },
  "ban-seconds": { variable: "ANIMAL_STORE_BAN_SECONDS", value: "N", default: String(AccessConfig.defaults.banSeconds) },
  "anonymous-per-minute": {
    variable: "ANIMAL_STORE_ANONYMOUS_PER_MINUTE",
    value: "N",
    default: String(AccessConfig.defaults.anonymousPerMinute)
  },
  "base-url": {
    variable: "ANIMAL_STORE_BASE_URL",
    value: "URL",
    help: "production base address, in the OpenAPI document, Location and Link",
    default: "the address listened on, http://<host>:<port>/v1"
  },
  "staging-base-url": { variable: "ANIMAL_STORE_STAGING_BASE_URL", value: "URL", default: "the address listened on" },
  "trusted-proxies": {
    variable: "ANIMAL_STORE_TRUSTED_PROXIES",
    value: "A,B",
    help: "proxies whose X-Forwarded-For is believed",
    default: "none"
  },
  "cors-origins": {
    variable: "ANIMAL_STORE_CORS_ORIGINS",
    value: "O,P|*",
    help: "origins allowed by CORS",
    default: "none: CORS off"
  },
  "cursor-secret": {
    variable: "ANIMAL_STORE_CURSOR_SECRET",
    value: "S",
    help: "seals listing cursors in place of the store's own secret (kept in the SQLite or PostgreSQL " +
      "database, shared by its processes); at least 32 characters",
    default: "the store's"
  },
  "access-log": { variable: "ANIMAL_STORE_ACCESS_LOG", value: "on|off", help: "one JSON line per request", default: "on" }
} as const satisfies Record<string, ServeFlag>

const variablesOf = <T extends Record<string, ServeFlag>>(table: T): { readonly [F in keyof T]: T[F]["variable"] } =>
  Object.fromEntries(Object.entries(table).map(([flag, { variable }]) => [flag, variable])) as {
    readonly [F in keyof T]: T[F]["variable"]
  }

/**
 * The flags of `serve` and their environment variables.
 *
 * @since 1.0.0
 * @category constants
 */
export const serveFlags = variablesOf(serveFlagTable)

/** The flags of `keys` and their variables (`--plan`, `--per-minute` and `--per-day` are flags only). */
const keysFlags = {
  "store": serveFlags.store,
  "env": serveFlags.env,
  "plan": undefined,
  "per-minute": undefined,
  "per-day": undefined
} as const

const usageColumn = 29
const usageWidth = 108

/** A flag's lines of the usage: its help and `(variable; default)`, wrapped under the column of helps. */
const usageOf = (flag: string, { default: fallback, help, value, variable }: ServeFlag): string => {
  const lines: Array<string> = []
  let line = `  --${flag} ${value}`.padEnd(usageColumn)
  for (const word of `${help === undefined ? "" : `${help} `}(${variable}; ${fallback})`.split(" ")) {
    if (line.length > usageColumn && line.length + 1 + word.length > usageWidth) {
      lines.push(line)
      line = " ".repeat(usageColumn) + word
    } else {
      line = line.length > usageColumn ? `${line} ${word}` : line + word
    }
  }
  return [...lines, line].join("\n")
}

/**
 * @since 1.0.0
 * @category constants
 */
export const usage = `Usage: animal-store <command> [flags]

Commands:
  serve                      Run the HTTP server
  keys create --plan <plan>  Issue a key (${KeyProvisioning.planNames}; enterprise with --per-minute N --per-day N)
              [--env E]      ... for environment E (default: the served one)
  keys list                  List keys (never their secrets)
  keys revoke <id>           Revoke a key

serve flags (environment variable; default):
${Object.entries(serveFlagTable).map(([flag, entry]) => usageOf(flag, entry as ServeFlag)).join("\n")}
  ${KeyProvisioning.variable.padEnd(usageColumn - 2)}keys to provision: <key>:<plan> or <key>:enterprise:<perMinute>:<perDay>, comma-separated

keys flags: --store S (ANIMAL_STORE_STORE), --env E (ANIMAL_STORE_ENV)
`

type Setting<A> = Either.Either<A, CliError>

const invalid = (name: string, reason: string) => Either.left(new CliError({ message: `--${name}: ${reason}` }))

/**
 * `serve`'s options from configuration: the server's own settings, core's
 * `AccessConfig.config`, the store and the keys to provision, each read from
 * its variable (the flags are put under their variables by `Settings.provider`).
 */
const serveConfig: Config.Config<StandaloneServer.Options> = Config.all({
  port: Settings.parsed(serveFlags.port, Settings.integerIn(0, 65_535)).pipe(Config.withDefault(serveDefaults.port)),
  host: Config.string(serveFlags.host).pipe(Config.withDefault(serveDefaults.host)),
  location: Settings.parsed(serveFlags.store, StoreLocation.parse).pipe(Config.withDefault(StoreLocation.defaultLocation)),
  maxConnections: Config.option(Settings.parsed(serveFlags["pool-size"], Settings.integerIn(1, 1_000))),
  statementTimeout: Config.option(Settings.parsed(serveFlags["statement-timeout"], Settings.integerIn(0, 86_400_000))),
  access: AccessConfig.config,
  production: Config.option(Settings.parsed(serveFlags["base-url"], Settings.httpUrl)),
  staging: Config.option(Settings.parsed(serveFlags["staging-base-url"], Settings.httpUrl)),
  trustedProxies: Settings.parsed(serveFlags["trusted-proxies"], Settings.list).pipe(Config.withDefault([])),
  corsOrigins: Settings.parsed(serveFlags["cors-origins"], Settings.origins).pipe(Config.withDefault([])),
  cursorSecret: Config.option(Settings.parsed(serveFlags["cursor-secret"], Settings.secret)),
  accessLog: Settings.parsed(serveFlags["access-log"], Settings.onOff).pipe(Config.withDefault(true)),
  keys: Settings.parsed(
    KeyProvisioning.variable,
    (text) => Either.mapLeft(KeyProvisioning.parse(text), (error) => error.message)
  ).pipe(Config.withDefault([]))
}).pipe(Config.map(({ location, maxConnections, production, staging, statementTimeout, ...settings }) => ({
  host: settings.host,
  port: settings.port,
  // Only a PostgreSQL store has a pool and statements: the settings are ignored otherwise.
  store: location._tag === "Postgres"
    ? {
      ...location,
      maxConnections: Option.getOrUndefined(maxConnections),
      statementTimeout: Option.getOrUndefined(statementTimeout)
    }
    : location,
  access: settings.access,
  keys: settings.keys,
  servers: {
    ...(Option.isSome(production) ? { production: production.value } : {}),
    ...(Option.isSome(staging) ? { staging: staging.value } : {})
  },
  trustedProxies: settings.trustedProxies,
  corsOrigins: settings.corsOrigins,
  cursorSecret: Option.getOrUndefined(settings.cursorSecret),
  accessLog: settings.accessLog
})))

const readSettings = <A>(
  config: Config.Config<A>,
  variables: Readonly<Record<string, string | undefined>>,
  parsed: Flags.Parsed,
  env: Env
): Setting<A> =>
  Either.mapLeft(
    Settings.read(config, Settings.provider(variables, parsed.values, env), variables),
    (message) => new CliError({ message })
  )

const parseServe = (parsed: Flags.Parsed, env: Env): Setting<Command> => {
  if (parsed.positionals.length > 0) return invalid("serve", `unexpected argument "${parsed.positionals[0]}"`)
  return Either.map(readSettings(serveConfig, serveFlags, parsed, env), (options) => ({ _tag: "Serve", options }) as const)
}

const keysConfig = Config.all({
  store: Settings.parsed(keysFlags.store, StoreLocation.parse).pipe(Config.withDefault(StoreLocation.defaultLocation)),
  environment: Config.option(AccessConfig.environment)
})

/** A flag without a variable: its value decoded, or `undefined` when absent. */
const flagOnly = <A>(
  parsed: Flags.Parsed,
  name: string,
  decode: (text: string) => Either.Either<A, string>
): Setting<A | undefined> => {
  const text = parsed.values[name]
  return text === undefined
    ? Either.right(undefined)
    : Either.mapLeft(decode(text), (reason) => new CliError({ message: `--${name}: ${reason}` }))
}

const limit = Settings.integerIn(1, Number.MAX_SAFE_INTEGER)

const parseKeys = (parsed: Flags.Parsed, env: Env): Setting<Command> => {
  const [action, ...rest] = parsed.positionals
  return Either.gen(function*() {
    const { environment, store } = yield* readSettings(keysConfig, keysFlags, parsed, env)
    switch (action) {
      case "create": {
        if (rest.length > 0) return yield* invalid("keys create", `unexpected argument "${rest[0]}"`)
        const plan = parsed.values["plan"]
        if (plan === undefined) return yield* invalid("plan", `is required (${KeyProvisioning.planNames})`)
        if (!KeyProvisioning.isPlan(plan)) return yield* invalid("plan", `expected ${KeyProvisioning.planNames}, got "${plan}"`)
        const perMinute = yield* flagOnly(parsed, "per-minute", limit)
        const perDay = yield* flagOnly(parsed, "per-day", limit)
        const limits = perMinute === undefined && perDay === undefined
          ? undefined
          : perMinute !== undefined && perDay !== undefined
          ? { perMinute, perDay }
          : yield* invalid("per-minute", "--per-minute and --per-day go together")
        return {
          _tag: "KeysCreate",
          store,
          options: { plan, limits, environment: Option.getOrUndefined(environment) }
        } as const
      }
      case "list":
        if (rest.length > 0) return yield* invalid("keys list", `unexpected argument "${rest[0]}"`)
        return { _tag: "KeysList", store } as const
      case "revoke": {
        const [id, ...extra] = rest
        if (id === undefined || extra.length > 0) return yield* invalid("keys revoke", "expected exactly one key id")
        return { _tag: "KeysRevoke", store, id } as const
      }
      default:
        return yield* Either.left(
          new CliError({ message: `unknown keys command "${action ?? ""}" (create, list or revoke)` })
        )
    }
  })
}

/**
 * Reads a command line (without the program name) and the environment.
 *
 * @since 1.0.0
 * @category constructors
 */
export const parse = (argv: ReadonlyArray<string>, env: Env): Either.Either<Command, CliError> => {
  const [command, ...args] = argv
  const flags = command === "serve" ? Object.keys(serveFlags) : command === "keys" ? Object.keys(keysFlags) : []
  if (command === undefined || command === "help" || command === "--help" || command === "-h") {
    return Either.right({ _tag: "Help", text: usage })
  }
  if (command !== "serve" && command !== "keys") {
    return Either.left(new CliError({ message: `unknown command "${command}" (serve or keys); see --help` }))
  }
  return Flags.parse(args, flags).pipe(
    Either.mapLeft((message) => new CliError({ message })),
    Either.flatMap((parsed) =>
      parsed.help
        ? Either.right<Command>({ _tag: "Help", text: usage })
        : command === "serve"
        ? parseServe(parsed, env)
        : parseKeys(parsed, env)
    )
  )
}

const storeServices = (store: StoreLocation.StoreLocation, environment?: ApiKey.Environment) =>
  StandaloneServer.layerServices(store, environment === undefined ? {} : { environment })

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

const storeFailure = (store: StoreLocation.StoreLocation) => (error: { readonly message: string }) =>
  new CliError({ message: `cannot use the store ${StoreLocation.format(store)}: ${error.message}` })

/** The server, under the process's heap policy (`internal/heapPolicy.ts`). */
const serve = (options: StandaloneServer.Options): Effect.Effect<void, CliError> =>
  // The access log goes straight to the JSON lines of stdout, in the logger's format.
  Layer.launch(
    Layer.merge(
      Layer.scopedDiscard(Effect.acquireRelease(Effect.sync(HeapPolicy.apply), (release) => Effect.sync(release))),
      StandaloneServer.layer({ ...options, accessLog: options.accessLog === false ? false : JsonLines.accessLog() })
    )
  ).pipe(
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

/**
 * Runs a parsed command.
 *
 * @since 1.0.0
 * @category constructors
 */
export const execute = (command: Command): Effect.Effect<void, CliError> => {
  switch (command._tag) {
    case "Help":
      return Console.log(command.text)
    case "Serve":
      return serve(command.options)
    case "KeysCreate":
      return Effect.flatMap(ApiKeyAuth.ApiKeyAuth, (auth) => auth.issue(command.options)).pipe(
        Effect.tap(({ key, secret }) =>
          Effect.andThen(
            Console.log(Redacted.value(secret)),
            Console.error(
              `Created key ${key.id} (${key.plan}, ${key.environment}). This is the only time the key is shown.`
            )
          )
        ),
        Effect.catchTag("InvalidRequest", (error) => Effect.fail(new CliError({ message: error.message }))),
        Effect.provide(storeServices(command.store, command.options.environment)),
        Effect.mapError((error) => error._tag === "CliError" ? error : storeFailure(command.store)(error))
      )
    case "KeysList":
      return Effect.flatMap(ApiKeyAuth.ApiKeyAuth, (auth) => auth.list).pipe(
        Effect.flatMap((keys) =>
          Console.log(
            keys.length === 0
              ? "No keys."
              : table(["ID", "PREFIX", "PLAN", "LIMITS", "ENVIRONMENT", "STATE", "CREATED"], keys.map(describeKey))
          )
        ),
        Effect.provide(storeServices(command.store)),
        Effect.mapError(storeFailure(command.store))
      )
    case "KeysRevoke":
      return Effect.flatMap(ApiKeyAuth.ApiKeyAuth, (auth) => auth.revoke(command.id)).pipe(
        Effect.mapError(storeFailure(command.store)),
        Effect.flatMap(Option.match({
          onNone: () => Effect.fail(new CliError({ message: `no key with id "${command.id}"` })),
          onSome: (key) => Console.log(`Revoked key ${key.id}.`)
        })),
        Effect.provide(storeServices(command.store)),
        Effect.mapError((error) => error._tag === "CliError" ? error : storeFailure(command.store)(error))
      )
  }
}

/**
 * Parses and runs a command line. A failure prints one line on stderr and
 * fails with the `CliError` (so the process exits non-zero, without a trace).
 *
 * @since 1.0.0
 * @category constructors
 */
export const run = (argv: ReadonlyArray<string>, env: Env): Effect.Effect<void, CliError> =>
  Either.match(parse(argv, env), { onLeft: Effect.fail, onRight: execute }).pipe(
    Effect.catchAllDefect((defect) =>
      Effect.fail(new CliError({ message: `unexpected error: ${defect instanceof Error ? defect.message : String(defect)}` }))
    ),
    Effect.tapError((error) => Console.error(`animal-store: ${error.message}`))
  )
