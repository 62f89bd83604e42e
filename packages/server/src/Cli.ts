/**
 * The `animal-store` command line (decisions.md "Running it"), on @effect/cli:
 *
 * - `serve`: the standalone server. Each flag falls back to its environment
 *   variable (an empty variable is unset); the flag wins.
 * - `keys ...`: keys on the store of `--store` (`internal/keysCommand.ts`).
 *
 * A command line that cannot run prints one line on stderr and fails, never a
 * stack trace. `--help` on every command, `--version`.
 *
 * @since 1.0.0
 */
import type * as CliApp from "@effect/cli/CliApp"
import * as Command from "@effect/cli/Command"
import * as HelpDoc from "@effect/cli/HelpDoc"
import * as Options from "@effect/cli/Options"
import * as ValidationError from "@effect/cli/ValidationError"
import * as Doc from "@effect/printer/Doc"
import type { StoreError } from "@animal-store/core"
import { AccessConfig } from "@animal-store/core"
import type * as HttpServerError from "@effect/platform/HttpServerError"
import type { Redacted } from "effect"
import { Config, Effect, Either, Layer, Logger, LogLevel, Option, Runtime } from "effect"
import type { Env } from "./internal/cliOptions.js"
import {
  CliError,
  configProvider,
  environment,
  refused,
  serveDefaults,
  serveSetting,
  setting,
  store,
  storeFailure
} from "./internal/cliOptions.js"
import * as AdminToken from "./internal/adminToken.js"
import * as CliHelp from "./internal/cliHelp.js"
import * as HeapPolicy from "./internal/heapPolicy.js"
import * as JsonLines from "./internal/jsonLines.js"
import * as KeysCommand from "./internal/keysCommand.js"
import * as Settings from "./internal/settings.js"
import * as Supervision from "./internal/supervision.js"
import * as WorkerIntake from "./internal/workerIntake.js"
import * as AdminApi from "./AdminApi.js"
import * as KeyProvisioning from "./KeyProvisioning.js"
import * as OpsListener from "./OpsListener.js"
import * as ServerMetrics from "./ServerMetrics.js"
import * as StandaloneServer from "./StandaloneServer.js"
import * as StoreLocation from "./StoreLocation.js"
import * as Supervisor from "./Supervisor.js"
import * as Tracing from "./Tracing.js"

export {
  /**
   * A command line that cannot run: the one line to print.
   *
   * @since 1.0.0
   * @category errors
   */
  CliError,
  /**
   * The configuration the flags fall back to: `env`, an empty variable being unset.
   *
   * @since 1.0.0
   * @category constructors
   */
  configProvider,
  /**
   * The defaults of `serve` that are the command line's own.
   *
   * @since 1.0.0
   * @category constants
   */
  serveDefaults,
  /**
   * The flags of `serve` and their environment variables.
   *
   * @since 1.0.0
   * @category constants
   */
  serveFlags
} from "./internal/cliOptions.js"

export type {
  /**
   * The environment variables read, by name.
   *
   * @since 1.0.0
   * @category models
   */
  Env
} from "./internal/cliOptions.js"

/**
 * The version `--version` prints (the package's).
 *
 * @since 1.0.0
 * @category constants
 */
export const version = "1.0.0"

/**
 * The admin token (a variable only), refused when it is short or when no
 * operations listener would serve the admin API (`opsPort` undefined).
 */
const checkedAdminToken = (opsPort: number | undefined) =>
  Config.option(Config.redacted(AdminToken.variable)).pipe(
    Effect.mapError((error) => refused(String(error))),
    Effect.flatMap(Option.match({
      onNone: () => Effect.succeed(undefined),
      onSome: (token) => {
        const refusal = AdminToken.refusal(token, opsPort)
        return refusal === undefined ? Effect.succeed(token) : Effect.fail(refused(refusal))
      }
    }))
  )

/** The keys of `ANIMAL_STORE_API_KEYS` (a variable only: keys stay off command lines). */
const provisionedKeys = Config.option(Config.string(KeyProvisioning.variable)).pipe(
  Effect.mapError((error) => refused(String(error))),
  Effect.flatMap((value) =>
    Either.mapLeft(KeyProvisioning.parse(Option.getOrUndefined(value)), (error) => refused(error.message))
  )
)

/** The levels of `--log-level`, by name. */
const logLevels: Readonly<Record<string, LogLevel.LogLevel>> = {
  debug: LogLevel.Debug,
  info: LogLevel.Info,
  warn: LogLevel.Warning,
  error: LogLevel.Error,
  none: LogLevel.None
}

/** The variable of `--create`. */
const createVariable = "ANIMAL_STORE_CREATE"

/** The variable of `--log-level`. */
const logLevelVariable = "ANIMAL_STORE_LOG_LEVEL"

/**
 * `serve`'s `--log-level`, taken off the command line before @effect/cli
 * reads it (its built-in `--log-level` would take other names, such as
 * `trace`, and hide the flag from `serve`): it is passed to `serve` as its
 * variable, which the flag wins over. `""` when it has no value.
 */
const takeLogLevel = (argv: ReadonlyArray<string>): { readonly argv: ReadonlyArray<string>; readonly value?: string } => {
  if (argv[0] !== "serve") return { argv }
  const rest: Array<string> = []
  let value: string | undefined
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!
    if (arg === "--") {
      rest.push(...argv.slice(i))
      break
    }
    if (arg === "--log-level") value = argv[++i] ?? ""
    else if (arg.startsWith("--log-level=")) value = arg.slice("--log-level=".length)
    else rest.push(arg)
  }
  return value === undefined ? { argv } : { argv: rest, value }
}

/**
 * What `serve` runs: the server and, when `ops` is set, its operations
 * listener (`--ops-port`, `--ops-host`).
 *
 * @since 1.0.0
 * @category models
 */
export interface ServeOptions extends Supervisor.Options {
  /**
   * The operations listener's address, off when `port` is `undefined`, and
   * the token of its admin API (`ANIMAL_STORE_ADMIN_TOKEN`), off when `undefined`.
   */
  readonly ops?: {
    readonly host: string
    readonly port: number | undefined
    readonly adminToken?: Redacted.Redacted<string> | undefined
  } | undefined
}

/**
 * The options of `serve`: its flags, each over its variable, and the keys
 * of `ANIMAL_STORE_API_KEYS`.
 *
 * @since 1.0.0
 * @category options
 */
export const serveOptions: Options.Options<ServeOptions> = Options.all({
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
  anonymousAddresses: serveSetting("anonymous-addresses", {
    value: "N",
    about: "addresses without a valid key counted in each process's memory, the least recently seen forgotten first",
    fallback: String(AccessConfig.defaults.anonymousAddresses),
    decode: Settings.positiveInteger
  }).pipe(Options.withDefault(AccessConfig.defaults.anonymousAddresses)),
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
    decode: Settings.trustedProxies
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
  }).pipe(Options.withDefault(true)),
  opsPort: serveSetting("ops-port", {
    value: "N",
    about: "port of the operations listener (GET /metrics)",
    fallback: "off",
    decode: Settings.integerIn(0, 65_535)
  }).pipe(Options.optional),
  opsHost: serveSetting("ops-host", {
    value: "H",
    about: "address of the operations listener",
    fallback: "127.0.0.1",
    decode: Either.right
  }).pipe(Options.withDefault("127.0.0.1")),
  logLevel: setting("log-level", {
    variable: logLevelVariable,
    value: "debug|info|warn|error|none",
    about: "the lowest level logged (access lines are info, probes' debug)",
    fallback: "info",
    decode: (text) =>
      Object.hasOwn(logLevels, text)
        ? Either.right(logLevels[text]!)
        : Either.left(`expected debug, info, warn, error or none, got "${text}"`)
  }).pipe(Options.withDefault(LogLevel.Info)),
  create: Options.boolean("create").pipe(
    Options.withDescription(
      "create the SQLite store even where the files of a previous one are left without its database " +
        `(it was lost) (${createVariable}; default off)`
    ),
    Options.withFallbackConfig(Config.boolean(createVariable))
  ),
  workers: serveSetting("workers", {
    value: "N|auto",
    about: "processes serving the port and the store (SQLite or PostgreSQL), restarted when one dies; auto: one per core",
    fallback: "1",
    decode: Supervisor.parseWorkers
  }).pipe(Options.withDefault(1))
}).pipe(Options.mapEffect((settings) =>
  Effect.map(
    Effect.zip(provisionedKeys, checkedAdminToken(Option.getOrUndefined(settings.opsPort))),
    ([keys, adminToken]): ServeOptions => ({
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
        anonymousPerMinute: settings.anonymousPerMinute,
        anonymousAddresses: settings.anonymousAddresses
      },
      keys,
      servers: {
        ...(Option.isSome(settings.production) ? { production: settings.production.value } : {}),
        ...(Option.isSome(settings.staging) ? { staging: settings.staging.value } : {})
      },
      trustedProxies: settings.trustedProxies,
      corsOrigins: settings.corsOrigins,
      cursorSecret: Option.getOrUndefined(settings.cursorSecret),
      accessLog: settings.accessLog,
      ops: { host: settings.opsHost, port: Option.getOrUndefined(settings.opsPort), adminToken },
      logLevel: settings.logLevel,
      create: settings.create,
      workers: settings.workers
    })
  )
))
/**
 * What `serve` sets on the process while it serves: V8's heap policy
 * (`internal/heapPolicy.ts`), and SIGINT/SIGTERM listeners that keep a second
 * signal (a terminal's Ctrl-C reaches the parent too, which may forward it)
 * from cutting the graceful shutdown short, logging it alone. A worker logs
 * no signal (its supervisor does) and ignores SIGHUP (its supervisor acts on it).
 */
const processPolicy = (worker: boolean) =>
  Layer.scopedDiscard(Effect.flatMap(Effect.runtime<never>(), (runtime) =>
    Effect.acquireRelease(
      Effect.sync(() => {
        const restoreHeap = HeapPolicy.apply()
        const received = (signal: NodeJS.Signals) => {
          if (!worker) {
            Runtime.runFork(runtime)(Effect.annotateLogs(Effect.logInfo(`${signal} received: shutting down`), { signal }))
          }
        }
        process.on("SIGINT", received).on("SIGTERM", received)
        if (worker) process.on("SIGHUP", received)
        return () => {
          process.off("SIGINT", received).off("SIGTERM", received).off("SIGHUP", received)
          restoreHeap()
        }
      }),
      (release) => Effect.sync(release)
    )))

/** A failure's cause, as text. */
const causeText = (cause: unknown): string => cause instanceof Error ? cause.message : String(cause)

/** The operations listener, with the admin API when `adminToken` is given, on `server` when given. */
const opsListener = (
  host: string,
  port: number,
  adminToken: Redacted.Redacted<string> | undefined,
  server?: OpsListener.Options["server"]
) =>
  Layer.unwrapScoped(Effect.gen(function*() {
    const admin = adminToken === undefined ? undefined : yield* AdminApi.httpApp(adminToken)
    return OpsListener.layer({ host, port, admin, server })
  })).pipe(Layer.catchAll((error) =>
    Layer.fail(
      error._tag === "ServeError"
        ? new CliError({ message: `cannot listen on the operations port (--ops-port) ${host}:${port}: ${causeText(error.cause)}` })
        : error
    )
  ))

/** A worker's place: its ports, on the supervisor's sockets, and how many workers serve. */
interface Supervised {
  readonly address: Supervision.Address
  readonly workers: number
}

/**
 * One process's server with the operations listener when `ops` is set (its
 * metrics observe every request), traced as the `OTEL_*` variables say. In a
 * worker (`supervised`) both take their connections from the supervisor, and
 * with several workers a scrape sums them all.
 */
const server = (ops: ServeOptions["ops"], supervised: Supervised | undefined) => (options: StandaloneServer.Options) => {
  const http = (observe: StandaloneServer.Options["observe"]) =>
    StandaloneServer.layer(
      { ...options, observe, accessLog: options.accessLog === false ? false : JsonLines.accessLog() },
      supervised === undefined ? StandaloneServer.layerHttp : WorkerIntake.layerHttp(options.host, supervised.address.port)
    )
  if (ops?.port === undefined) return Tracing.provideConfig(http(undefined))
  const observed = Layer.unwrapEffect(Effect.map(ServerMetrics.ServerMetrics, ({ observe }) => http(observe)))
  const opsPort = supervised?.address.opsPort ?? ops.port
  const listener = opsListener(
    ops.host,
    opsPort,
    ops.adminToken,
    supervised === undefined ? undefined : WorkerIntake.layerOps(ops.host, opsPort)
  )
  const metrics = supervised !== undefined && supervised.workers > 1 ? ServerMetrics.layerWorker : ServerMetrics.layer
  return Tracing.provideConfig(listener.pipe(Layer.provideMerge(observed), Layer.provide(metrics)))
}

/** A memory store cannot be shared: refused with more than one worker. */
const checkWorkers = (options: ServeOptions): Effect.Effect<void, CliError> =>
  (options.workers ?? 1) > 1 && options.store._tag === "Memory"
    ? Effect.fail(
      new CliError({
        message: `--workers ${options.workers} needs a SQLite or PostgreSQL store: on ${
          StoreLocation.format(options.store)
        } each process would keep its own animals, keys and limits`
      })
    )
    : Effect.void

/**
 * In a worker forked by the supervisor of `serve` (the bin's): its settings
 * to the supervisor, then the server on the supervisor's sockets until told
 * to drain; only the worker the supervisor says provisions the keys (each
 * start of one on the memory store).
 */
const serveSupervised = (worker: Supervision.WorkerOf, { ops, ...options }: ServeOptions) =>
  Effect.gen(function*() {
    const workers = options.workers ?? 1
    const address = yield* WorkerIntake.address({
      host: options.host,
      port: options.port,
      workers,
      ops: ops?.port === undefined ? undefined : { host: ops.host, port: ops.port },
      logLevel: (options.logLevel ?? LogLevel.Info)._tag,
      accessLog: options.accessLog !== false
    })
    if (Option.isSome(address)) {
      const served = server(ops, { address: address.value, workers })({
        ...options,
        port: address.value.port,
        // A memory store starts empty in each worker: every start provisions it.
        keys: worker.provisions || options.store._tag === "Memory" ? options.keys : []
      })
      yield* WorkerIntake.run(Layer.merge(processPolicy(true), served))
    }
    yield* WorkerIntake.leave
  }).pipe(Effect.annotateLogs({ worker: worker.worker, pid: process.pid }))

/**
 * The server until interrupted: in a worker of the bin's supervisor, on its
 * sockets; otherwise (`Cli.run` called in-process) in this process alone.
 */
const serve = (options: ServeOptions): Effect.Effect<void, CliError> => {
  const worker = Supervision.workerOf()
  const serving: Effect.Effect<void, CliError | StoreError.StoreError | HttpServerError.ServeError | KeyProvisioning.ProvisioningError> =
    worker !== undefined
      ? serveSupervised(worker, options)
      : (options.workers ?? 1) > 1
      ? Effect.fail(
        new CliError({ message: `--workers ${options.workers} runs under the animal-store command, not in Cli.run` })
      )
      : Layer.launch(Layer.merge(processPolicy(false), server(options.ops, undefined)(options)))
  return Effect.zipRight(checkWorkers(options), serving).pipe(
    Effect.catchTags({
      StoreError: (error) => Effect.fail(storeFailure(options.store)(error)),
      ServeError: (error) =>
        Effect.fail(
          new CliError({
            message: `cannot listen on ${options.host}:${options.port}: ${causeText(error.cause)}`
          })
        ),
      ProvisioningError: (error) => Effect.fail(new CliError({ message: error.message }))
    }),
    Effect.provide(Layer.merge(JsonLines.layer, Logger.minimumLogLevel(options.logLevel ?? LogLevel.Info)))
  )
}
const serveCommand = Command.make("serve", { options: serveOptions }, ({ options }) => serve(options)).pipe(
  Command.withDescription(
    `Run the HTTP server; ${KeyProvisioning.variable} provisions keys at start: ` +
      "<key>:<plan> or <key>:enterprise:<perMinute>:<perDay>, comma-separated"
  )
)

const command = Command.make("animal-store").pipe(
  Command.withDescription("The Animal Store server and its keys"),
  Command.withSubcommands([serveCommand, KeysCommand.command])
)

/** The commands `--help` is shown for. */
const helpEntries: ReadonlyArray<CliHelp.Entry> = [
  CliHelp.entry([], command, true),
  CliHelp.entry(["serve"], serveCommand, false),
  CliHelp.entry(["keys"], KeysCommand.command, true),
  ...KeysCommand.helpEntries
]

/** The commands that run, as a refusal names them: "serve, keys create, ... or keys unban". */
const commandNames = ((names: ReadonlyArray<string>) => `${names.slice(0, -1).join(", ")} or ${names.at(-1)}`)(
  helpEntries.filter((entry) => !entry.group).map((entry) => entry.path.join(" "))
)

/** ANSI escape sequences (styles). */
const ansi = /\x1b\[[0-9;]*[A-Za-z]/g

/**
 * Whether the help may have colours: stdout is a terminal and `NO_COLOR` is
 * unset or empty (https://no-color.org).
 */
const colorOn = (env: Env): boolean => process.stdout.isTTY === true && (env.NO_COLOR ?? "") === ""

/** A document's text without its styles. */
const plainText = (doc: HelpDoc.HelpDoc): string =>
  Doc.render(Doc.unAnnotate(HelpDoc.toAnsiDoc(doc)), { style: "pretty" })

/** The one line of a refused command line. */
const refusal = (error: ValidationError.ValidationError, argv: ReadonlyArray<string>): string => {
  if (ValidationError.isCommandMismatch(error)) {
    const flag = argv.findIndex((arg) => arg.startsWith("-"))
    const words = (flag === -1 ? argv : argv.slice(0, Math.max(1, flag))).join(" ")
    return `unknown command "${words}" (${commandNames}); see --help`
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
  Effect.consoleWith((console) => {
    const logLevel = takeLogLevel(argv)
    if (logLevel.value === "") {
      const message = "--log-level: expected debug, info, warn, error or none"
      return Effect.zipRight(console.error(`animal-store: ${message}`), Effect.fail(new CliError({ message })))
    }
    const color = colorOn(env)
    const help = CliHelp.requested(argv, helpEntries)
    if (help !== undefined) return console.log(CliHelp.render(CliHelp.document("animal-store", version, help, helpEntries), color))
    const serveEnv = logLevel.value === undefined ? env : { ...env, [logLevelVariable]: logLevel.value }
    return Command.run(
      // The commands print on the console `run` was given...
      Command.transformHandler(command, (handler) => Effect.withConsole(handler, console)),
      { name: "animal-store", version }
    )(["node", "animal-store", ...(argv[0] === "help" ? [...argv.slice(1), "--help"] : logLevel.argv)]).pipe(
      // ... its own output is plain text unless `color`, and its report of a refused command line is
      // replaced by the one line below.
      Effect.withConsole({
        ...console,
        log: (...args) => console.log(...(color ? args : args.map((arg) => typeof arg === "string" ? arg.replace(ansi, "") : arg))),
        error: () => Effect.void
      }),
      Effect.withConfigProvider(configProvider(serveEnv)),
      Effect.catchIf(ValidationError.isValidationError, (error) => Effect.fail(new CliError({ message: refusal(error, argv) }))),
      Effect.catchAllDefect((defect) =>
        Effect.fail(new CliError({ message: `unexpected error: ${defect instanceof Error ? defect.message : String(defect)}` }))
      ),
      Effect.tapError((error) => console.error(`animal-store: ${error.message}`))
    )
  })
