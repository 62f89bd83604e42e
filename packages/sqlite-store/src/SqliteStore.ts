/**
 * Every storage port of Animal Store on one SQLite database file: the
 * embedded default of the standalone server.
 *
 * Opening sets WAL journaling, a busy timeout and `synchronous`, then brings
 * the schema to the current version (`SqliteMigrations`). Any failure to open,
 * write or migrate the file is a `StoreError`.
 *
 * @since 1.0.0
 */
import type { AnimalStore } from "@animal-store/core"
import { Durability, StoreError } from "@animal-store/core"
import * as SqlClient from "@effect/sql/SqlClient"
import type { ConfigError, Scope } from "effect"
import { Config, Context, Effect, Layer } from "effect"
import * as Fs from "node:fs"
import * as Path from "node:path"
import * as SqliteApiKeyStore from "./SqliteApiKeyStore.js"
import * as SqliteDatabase from "./SqliteDatabase.js"
import * as SqliteIdempotencyStore from "./SqliteIdempotencyStore.js"
import * as SqliteMigrations from "./SqliteMigrations.js"
import * as SqlitePetRepository from "./SqlitePetRepository.js"
import * as SqliteRateLimitStore from "./SqliteRateLimitStore.js"
import * as SqliteStoreSecrets from "./SqliteStoreSecrets.js"

/**
 * @since 1.0.0
 * @category models
 */
export type Synchronous = SqliteDatabase.Synchronous

/**
 * @since 1.0.0
 * @category models
 */
export type Options = SqliteDatabase.Options

const isFile = (filename: string) => filename !== ":memory:" && filename !== ""

// Not `mkdirSync(folder, { recursive: true })`: on Node 20 it loops forever
// when the parent exists but refuses the child (e.g. under /proc).
const ensureFolder = (folder: string): void => {
  const stat = Fs.statSync(folder, { throwIfNoEntry: false })
  if (stat !== undefined) {
    if (!stat.isDirectory()) throw new Error(`"${folder}" is not a folder`)
    return
  }
  const parent = Path.dirname(folder)
  if (parent !== folder) ensureFolder(parent)
  try {
    Fs.mkdirSync(folder)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error
  }
}

const createFolder = (filename: string) =>
  Effect.try({
    try: () => {
      if (isFile(filename)) ensureFolder(Path.dirname(Path.resolve(filename)))
    },
    catch: (cause) =>
      new StoreError.StoreError({
        reason: "Unavailable",
        message: `Cannot create the folder of the SQLite database "${filename}": ${
          cause instanceof Error ? cause.message : String(cause)
        }`,
        cause
      })
  })

/**
 * Opens the database file, sets its pragmas and migrates it: the
 * `SqliteDatabase` the per-port modules run on. The file is
 * closed when the scope closes.
 *
 * @since 1.0.0
 * @category constructors
 */
export const makeClient = (
  options: Options
): Effect.Effect<SqliteDatabase.SqliteDatabase, StoreError.StoreError, Scope.Scope> =>
  Effect.gen(function*() {
    yield* createFolder(options.filename)
    const database = yield* SqliteDatabase.make(options)
    yield* Effect.provideService(SqliteMigrations.migrate, SqlClient.SqlClient, database.sql)
    return database
  })

/**
 * The `SqliteDatabase` of `makeClient`, and its `SqlClient`.
 *
 * @since 1.0.0
 * @category layers
 */
export const layerClient = (
  options: Options
): Layer.Layer<SqliteDatabase.SqliteDatabase | SqlClient.SqlClient, StoreError.StoreError> =>
  Layer.scopedContext(
    Effect.map(
      makeClient(options),
      (database) => Context.make(SqliteDatabase.SqliteDatabase, database).pipe(Context.add(SqlClient.SqlClient, database.sql))
    )
  )

/**
 * The per-port layers on the `SqliteDatabase` of `makeClient`, the store's
 * `Durability` (its group commit), and the store's cursor secret (read, or
 * made the first time, from the database).
 *
 * @since 1.0.0
 * @category layers
 */
export const layerPorts: Layer.Layer<
  AnimalStore.StorePorts | Durability.Durability,
  StoreError.StoreError,
  SqliteDatabase.SqliteDatabase
> = Layer.mergeAll(
  Layer.effect(Durability.Durability, Effect.map(SqliteDatabase.SqliteDatabase, (database) => database.durability)),
  SqlitePetRepository.layer,
  SqliteApiKeyStore.layer,
  SqliteRateLimitStore.layer,
  SqliteIdempotencyStore.layer,
  SqliteStoreSecrets.layerCursorSecret
)

/**
 * Every port on the SQLite database `options.filename`.
 *
 * @since 1.0.0
 * @category layers
 */
export const layer = (options: Options): Layer.Layer<AnimalStore.StorePorts | Durability.Durability, StoreError.StoreError> =>
  Layer.provide(layerPorts, layerClient(options))

/**
 * `layer` with its options read from configuration.
 *
 * @since 1.0.0
 * @category layers
 */
export const layerConfig = (
  config: Config.Config.Wrap<Options>
): Layer.Layer<AnimalStore.StorePorts | Durability.Durability, StoreError.StoreError | ConfigError.ConfigError> =>
  Layer.unwrapEffect(Effect.map(Config.unwrap(config), layer))
