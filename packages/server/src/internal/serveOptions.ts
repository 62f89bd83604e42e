/**
 * The options of `serve`: each flag over its variable (`internal/cliOptions.ts`),
 * `--log-level` and `--create`, and the variables only (`ANIMAL_STORE_API_KEYS`,
 * `ANIMAL_STORE_ADMIN_TOKEN`), read into the `ServeOptions` the server runs with.
 */
import { AccessConfig } from "@animal-store/core"
import * as Options from "@effect/cli/Options"
import type { Redacted } from "effect"
import { Config, Effect, Either, LogLevel, Option } from "effect"
import * as KeyProvisioning from "../KeyProvisioning.js"
import * as Supervisor from "../Supervisor.js"
import * as AdminToken from "./adminToken.js"
import { environment, refused, serveDefaults, serveSetting, setting, store } from "./cliOptions.js"
import * as Settings from "./settings.js"

/** What `serve` runs: the server and, when `ops` is set, its operations listener. */
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

/** The variable of `--log-level`. */
export const logLevelVariable = "ANIMAL_STORE_LOG_LEVEL"

/** The variable of `--create`. */
const createVariable = "ANIMAL_STORE_CREATE"

/** The levels of `--log-level`, by name. */
const logLevels: Readonly<Record<string, LogLevel.LogLevel>> = {
  debug: LogLevel.Debug,
  info: LogLevel.Info,
  warn: LogLevel.Warning,
  error: LogLevel.Error,
  none: LogLevel.None
}

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

/** The flags of `serve`, as read. */
const flags = Options.all({
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
})

type Flags = typeof flags extends Options.Options<infer A> ? A : never

/** The store, with the pool settings when it is PostgreSQL's (the others have no pool and no statements). */
const storeOf = (flags: Flags): ServeOptions["store"] =>
  flags.store._tag === "Postgres"
    ? {
      ...flags.store,
      maxConnections: Option.getOrUndefined(flags.maxConnections),
      statementTimeout: Option.getOrUndefined(flags.statementTimeout)
    }
    : flags.store

/** `serve`'s options from its flags, the provisioned keys and the admin token. */
const serveOptionsOf = (
  flags: Flags,
  keys: ServeOptions["keys"],
  adminToken: Redacted.Redacted<string> | undefined
): ServeOptions => ({
  host: flags.host,
  port: flags.port,
  store: storeOf(flags),
  access: {
    environment: flags.environment,
    banAfter: flags.banAfter,
    banSeconds: flags.banSeconds,
    anonymousPerMinute: flags.anonymousPerMinute,
    anonymousAddresses: flags.anonymousAddresses
  },
  keys,
  servers: {
    ...(Option.isSome(flags.production) ? { production: flags.production.value } : {}),
    ...(Option.isSome(flags.staging) ? { staging: flags.staging.value } : {})
  },
  trustedProxies: flags.trustedProxies,
  corsOrigins: flags.corsOrigins,
  cursorSecret: Option.getOrUndefined(flags.cursorSecret),
  accessLog: flags.accessLog,
  ops: { host: flags.opsHost, port: Option.getOrUndefined(flags.opsPort), adminToken },
  logLevel: flags.logLevel,
  create: flags.create,
  workers: flags.workers
})

/** The options of `serve`: its flags, each over its variable, and the variables only. */
export const serveOptions: Options.Options<ServeOptions> = flags.pipe(Options.mapEffect((flags) =>
  Effect.map(
    Effect.zip(provisionedKeys, checkedAdminToken(Option.getOrUndefined(flags.opsPort))),
    ([keys, adminToken]) => serveOptionsOf(flags, keys, adminToken)
  )
))
