/**
 * Every storage port of Animal Store on one PostgreSQL database, shared by servers on several
 * machines (record 0013): a `pg` pool through `@effect/sql-pg`, the schema migrated on opening
 * (`PostgresMigrations`), or a host's own `PgClient` (`layerOnClient`). A database that cannot be
 * reached is a `StoreError` "Unavailable"; the pool connects again once it is back.
 *
 * @since 1.0.0
 */
import type { AnimalStore } from "@animal-store/core"
import { StoreError, StoreReadiness } from "@animal-store/core"
import { SqlStore, SqlStoreSecrets } from "@animal-store/sql-store"
import * as Reactivity from "@effect/experimental/Reactivity"
import * as SqlClient from "@effect/sql/SqlClient"
import { SqlError } from "@effect/sql/SqlError"
import * as PgClient from "@effect/sql-pg/PgClient"
import type { ConfigError, Scope } from "effect"
import { Config, Context, Duration, Effect, Layer, Redacted } from "effect"
import Pg from "pg"
import * as Prepared from "./internal/prepared.js"
import { classifier, fromCause, mapStoreError } from "./internal/storeError.js"
import * as Url from "./internal/url.js"
import * as PostgresApiKeyStore from "./PostgresApiKeyStore.js"
import * as PostgresDatabase from "./PostgresDatabase.js"
import * as PostgresIdempotencyStore from "./PostgresIdempotencyStore.js"
import * as PostgresMigrations from "./PostgresMigrations.js"
import * as PostgresPetRepository from "./PostgresPetRepository.js"
import * as PostgresRateLimitStore from "./PostgresRateLimitStore.js"

/**
 * @since 1.0.0
 * @category models
 */
export interface Options {
  /** `postgres://user:password@host:port/database` (libpq's URL form; `?sslmode=...` and the like are passed on). */
  readonly url: string | Redacted.Redacted<string>
  /** The schema of the store's tables, created when missing. Default `public`. */
  readonly schema?: string | undefined
  /** The most connections the pool opens. Default 10. */
  readonly maxConnections?: number | undefined
  /** The longest a statement may run before the server cancels it (the request gets a 503). Default 5 seconds; 0 disables it. */
  readonly statementTimeout?: Duration.DurationInput | undefined
  /** The longest the pool waits to open a connection, or for a free one. Default 5 seconds. */
  readonly connectTimeout?: Duration.DurationInput | undefined
  /** How long an unused connection stays open. Default 30 seconds. */
  readonly idleTimeout?: Duration.DurationInput | undefined
  /** The `application_name` the server sees (`pg_stat_activity`). Default `animal-store`. */
  readonly applicationName?: string | undefined
}

/**
 * The defaults of `Options`.
 *
 * @since 1.0.0
 * @category constants
 */
export const defaults = {
  maxConnections: 10,
  statementTimeout: Duration.seconds(5),
  connectTimeout: Duration.seconds(5),
  idleTimeout: Duration.seconds(30),
  applicationName: "animal-store"
} as const


const millis = (duration: Duration.DurationInput): number => Math.max(0, Math.round(Duration.toMillis(duration)))

/**
 * Opens the connection pool of `options` (closed when the scope closes) and
 * checks that the database answers: the `PgClient` the store runs on. It
 * does not migrate (`layer` does).
 *
 * @since 1.0.0
 * @category constructors
 */
export const makeClient = (options: Options): Effect.Effect<PgClient.PgClient, StoreError.StoreError, Scope.Scope> =>
  Effect.gen(function*() {
    const url = Redacted.isRedacted(options.url) ? Redacted.value(options.url) : options.url
    const opening = `Connecting to the PostgreSQL database ${Url.redact(url)}`
    const statementTimeout = millis(options.statementTimeout ?? defaults.statementTimeout)
    const connectTimeout = millis(options.connectTimeout ?? defaults.connectTimeout)
    let opened: Pg.Pool | undefined
    const client = yield* PgClient.fromPool({
      acquire: Effect.acquireRelease(
        Effect.try({
          try: () => {
            const pool = new Pg.Pool({
              connectionString: url,
              max: options.maxConnections ?? defaults.maxConnections,
              connectionTimeoutMillis: connectTimeout,
              idleTimeoutMillis: millis(options.idleTimeout ?? defaults.idleTimeout),
              application_name: options.applicationName ?? defaults.applicationName,
              keepAlive: true,
              keepAliveInitialDelayMillis: 10_000,
              ...(statementTimeout > 0 ? { statement_timeout: statementTimeout } : {}),
              // A session that stops in the middle of a transaction (its
              // process frozen) releases its row locks after a minute.
              idle_in_transaction_session_timeout: 60_000
            })
            // A connection that breaks while idle in the pool is dropped by
            // the pool; without a listener, the error would end the process.
            pool.on("error", () => {})
            opened = pool
            return pool
          },
          catch: (cause) => new SqlError({ cause, message: "Invalid PostgreSQL connection settings" })
        }),
        (pool) => Effect.promise(() => pool.end()).pipe(Effect.timeoutOption(2_000), Effect.ignore)
      ),
      applicationName: options.applicationName ?? defaults.applicationName
    }).pipe(Effect.provide(Reactivity.layer), Effect.mapError((error) => fromCause(opening, error, "Unavailable")))
    if (opened !== undefined) Prepared.ownPool(client, opened)
    yield* client.unsafe("SELECT 1").pipe(
      Effect.timeoutFail({
        duration: Duration.millis(Math.max(connectTimeout, 1_000)),
        onTimeout: () => new Error("Connection timed out")
      }),
      Effect.mapError((error) => fromCause(opening, error, "Unavailable"))
    )
    return client
  })

/**
 * The `PgClient` of `makeClient`, also as the `SqlClient`.
 *
 * @since 1.0.0
 * @category layers
 */
export const layerClient = (
  options: Options
): Layer.Layer<PgClient.PgClient | SqlClient.SqlClient, StoreError.StoreError> =>
  Layer.scopedContext(
    Effect.map(
      makeClient(options),
      (client) => Context.make(PgClient.PgClient, client).pipe(Context.add(SqlClient.SqlClient, client))
    )
  )

/**
 * Checks that the store's database answers, for health checks.
 *
 * @since 1.0.0
 * @category queries
 */
export const ping: Effect.Effect<void, StoreError.StoreError, SqlClient.SqlClient> = Effect.flatMap(
  SqlClient.SqlClient,
  (sql) => sql.unsafe("SELECT 1")
).pipe(Effect.asVoid, mapStoreError("Checking the PostgreSQL database"))

/**
 * The per-port layers on a `PostgresDatabase` (migrated), the store's
 * cursor secret (read, or made the first time, from the database) and its
 * readiness (`ping`).
 *
 * @since 1.0.0
 * @category layers
 */
export const layerPorts: Layer.Layer<
  AnimalStore.StorePorts | StoreReadiness.StoreReadiness,
  StoreError.StoreError,
  PostgresDatabase.PostgresDatabase
> = Layer
  .unwrapEffect(Effect.map(PostgresDatabase.PostgresDatabase, (db) =>
    Layer.merge(
      StoreReadiness.layer(Effect.provideService(ping, SqlClient.SqlClient, db.sql)),
      SqlStore.layer({
        ports: Layer.mergeAll(
          PostgresPetRepository.layer,
          PostgresApiKeyStore.layer,
          PostgresRateLimitStore.layer,
          PostgresIdempotencyStore.layer
        ),
        classifier,
        name: "PostgresStore",
        secretsTable: `${db.schema}.${SqlStoreSecrets.table}`
      }).pipe(Layer.provide(Layer.succeed(SqlClient.SqlClient, db.sql)))
    )))

const validSchema = (schema: string | undefined) =>
  Effect.suspend(() =>
    schema === undefined || PostgresDatabase.isSchemaName(schema)
      ? Effect.succeed(schema ?? PostgresDatabase.defaultSchema)
      : Effect.fail(
        new StoreError.StoreError({
          reason: "Unknown",
          message: `Invalid schema name "${schema}": expected lower-case letters, digits and _ (at most 63)`
        })
      )
  )

/**
 * Every port on the `PgClient` of the context (a host's own pool): the store's
 * tables in `schema` (default `public`), migrated when the layer is built.
 * Timeouts and pool size are the host's client's. Without a connection of
 * its own to listen on, a key revoked elsewhere is refused once
 * `PostgresApiKeyStore.keyCacheTtl` has passed.
 *
 * @since 1.0.0
 * @category layers
 */
export const layerOnClient = (
  options: { readonly schema?: string | undefined } = {}
): Layer.Layer<AnimalStore.StorePorts | StoreReadiness.StoreReadiness, StoreError.StoreError, PgClient.PgClient> => layerOn(options.schema, undefined)

const layerOn = (
  schemaOption: string | undefined,
  listenUrl: string | undefined
): Layer.Layer<AnimalStore.StorePorts | StoreReadiness.StoreReadiness, StoreError.StoreError, PgClient.PgClient> =>
  Layer.provide(
    layerPorts,
    Layer.effect(
      PostgresDatabase.PostgresDatabase,
      Effect.gen(function*() {
        const schema = yield* validSchema(schemaOption)
        const database = PostgresDatabase.make(yield* PgClient.PgClient, schema, listenUrl)
        yield* Effect.provideService(PostgresMigrations.migrate, PostgresDatabase.PostgresDatabase, database)
        return database
      })
    )
  )

/**
 * Every port on the PostgreSQL database at `options.url`, on a pool of its
 * own, closed when the layer is released, and one more connection that
 * listens for revoked API keys (`PostgresApiKeyStore`).
 *
 * @since 1.0.0
 * @category layers
 */
export const layer = (
  options: Options
): Layer.Layer<AnimalStore.StorePorts | StoreReadiness.StoreReadiness, StoreError.StoreError> =>
  Layer.provide(
    layerOn(options.schema, Redacted.isRedacted(options.url) ? Redacted.value(options.url) : options.url),
    Layer.unwrapEffect(Effect.as(validSchema(options.schema), layerClient(options)))
  )

/**
 * `layer` with its options read from configuration.
 *
 * @since 1.0.0
 * @category layers
 */
export const layerConfig = (
  config: Config.Config.Wrap<Options>
): Layer.Layer<AnimalStore.StorePorts | StoreReadiness.StoreReadiness, StoreError.StoreError | ConfigError.ConfigError> =>
  Layer.unwrapEffect(Effect.map(Config.unwrap(config), layer))
