/**
 * Every storage port of Animal Store on one SQLite database file, through
 * `@effect/sql-sqlite-node`'s `SqliteClient`: the embedded default of the
 * standalone server. A port call ends once what it wrote is committed: each
 * write is one short transaction, run in the caller's turn.
 *
 * @since 1.0.0
 */
import type { AnimalStore, StoreError, StoreReadiness } from "@animal-store/core"
import { Delivery } from "@animal-store/core"
import { SqlStore, StoreUrl } from "@animal-store/sql-store"
import * as SqlClient from "@effect/sql/SqlClient"
import * as SqliteClient from "@effect/sql-sqlite-node/SqliteClient"
import type { ConfigError, Scope } from "effect"
import { Config, Context, Effect, Either, Layer } from "effect"
import * as ApiKeyStore from "./internal/apiKeyStore.js"
import * as Client from "./internal/client.js"
import * as Database from "./internal/database.js"
import * as IdempotencyStore from "./internal/idempotencyStore.js"
import * as LockWaits from "./internal/lockWaits.js"
import * as PetRepository from "./internal/petRepository.js"
import * as RateLimitStore from "./internal/rateLimitStore.js"
import * as Readiness from "./internal/readiness.js"
import { classifier } from "./internal/storeError.js"
import * as SqliteMigrations from "./SqliteMigrations.js"

/**
 * The name of the store's Effect histogram (seconds) of lock waits: how long each port call
 * refused by another connection's lock (another process on the file) waited until it ran, or
 * gave up at the busy timeout. Calls never refused are not in it.
 *
 * @since 1.0.0
 * @category metrics
 */
export const lockWaitsMetric: string = LockWaits.name

/**
 * How SQLite makes a commit durable:
 *
 * - `"NORMAL"` (default): with WAL, a commit is in the operating system's
 *   file cache when it is acknowledged. It survives the process being killed
 *   (even with `kill -9`); on power loss the last commits may be lost, the
 *   database stays consistent.
 * - `"FULL"`: every commit is also flushed to the disk (`fsync`) before it is
 *   acknowledged, so it survives power loss too.
 *
 * @since 1.0.0
 * @category models
 */
export type Synchronous = "NORMAL" | "FULL"

/**
 * @since 1.0.0
 * @category models
 */
export interface Options {
  /** Path of the database file (its folder is created), or `":memory:"`. */
  readonly filename: string
  /** Default `"NORMAL"`. */
  readonly synchronous?: Synchronous | undefined
  /** How long a write waits for another connection's lock before failing, in ms. Default 5000. */
  readonly busyTimeout?: number | undefined
  /**
   * Whether a missing database file is created where a previous store's
   * marker (`<file>-created`), `-wal` or `-shm` is still there: the database
   * was lost, and without `create` opening fails. Default `false`; a folder
   * without any of them gets a new database either way.
   */
  readonly create?: boolean | undefined
}

/**
 * Opens the database file with WAL, `synchronous` and the busy timeout, and
 * migrates it (`SqliteMigrations.migrate`). The file is closed when the scope
 * closes. Fails with `StoreError` when the file cannot be opened or migrated.
 *
 * @since 1.0.0
 * @category constructors
 */
export const makeClient = (options: Options): Effect.Effect<SqliteClient.SqliteClient, StoreError.StoreError, Scope.Scope> =>
  Effect.tap(Client.open(options), (client) => Effect.provideService(SqliteMigrations.migrate, SqlClient.SqlClient, client))

/**
 * The client of `makeClient`, as a `SqliteClient` and a `SqlClient`.
 *
 * @since 1.0.0
 * @category layers
 */
export const layerClient = (
  options: Options
): Layer.Layer<SqliteClient.SqliteClient | SqlClient.SqlClient, StoreError.StoreError> =>
  Layer.scopedContext(Effect.map(makeClient(options), (client) =>
    Context.make(SqliteClient.SqliteClient, client).pipe(
      Context.add(SqlClient.SqlClient, client)
    )))

/**
 * Every port, the cursor secret (read, or made the first time, from the
 * database), the store's readiness (`SELECT 1`) and its `Delivery` (the held
 * writes' commit, record 0068), on the `SqliteClient` of `makeClient` (migrated).
 *
 * @since 1.0.0
 * @category layers
 */
export const layerPorts: Layer.Layer<
  AnimalStore.StorePorts | StoreReadiness.StoreReadiness | Delivery.Delivery,
  StoreError.StoreError,
  SqliteClient.SqliteClient
> = Layer.merge(
  SqlStore.layer({
    ports: Layer.mergeAll(PetRepository.layer, ApiKeyStore.layer, RateLimitStore.layer, IdempotencyStore.layer),
    classifier,
    name: "SqliteStore"
  }),
  Layer.effect(Delivery.Delivery, Effect.map(Database.Database, (database) => database.delivery))
).pipe(
  Layer.provide(Layer.scoped(Database.Database, Effect.flatMap(SqliteClient.SqliteClient, Database.make))),
  Layer.provide(Layer.effect(SqlClient.SqlClient, SqliteClient.SqliteClient)),
  Layer.merge(Readiness.layer)
)

/**
 * Every port, the readiness and the `Delivery`, on the SQLite database `options.filename`.
 *
 * @since 1.0.0
 * @category layers
 */
export const layer = (
  options: Options
): Layer.Layer<AnimalStore.StorePorts | StoreReadiness.StoreReadiness | Delivery.Delivery, StoreError.StoreError> =>
  Layer.provide(layerPorts, layerClient(options))

/**
 * `layer` with its options read from configuration.
 *
 * @since 1.0.0
 * @category layers
 */
export const layerConfig = (
  config: Config.Config.Wrap<Options>
): Layer.Layer<AnimalStore.StorePorts | StoreReadiness.StoreReadiness | Delivery.Delivery, StoreError.StoreError | ConfigError.ConfigError> =>
  Layer.unwrapEffect(Effect.map(Config.unwrap(config), layer))

/**
 * The location of a SQLite store: its file.
 *
 * @since 1.0.0
 * @category models
 */
export interface Location {
  readonly _tag: "Sqlite"
  readonly filename: string
}

/**
 * The store's URLs, `sqlite:<path>`, for a `StoreUrl.Registry`.
 *
 * @since 1.0.0
 * @category store urls
 */
export const storeUrl: StoreUrl.StoreUrl<Location> = StoreUrl.make<Location>({
  tag: "Sqlite",
  form: "sqlite:<path>",
  accepts: (text) => text.startsWith("sqlite:") && text.length > "sqlite:".length,
  parse: (text) => Either.right({ _tag: "Sqlite", filename: text.slice("sqlite:".length) }),
  format: (location) => `sqlite:${location.filename}`,
  layer: (location) => layer({ filename: location.filename })
})
