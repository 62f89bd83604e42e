import { StoreError } from "@animal-store/core"
import * as Migrator from "@effect/sql/Migrator"
import * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import { Effect } from "effect"
import type * as SqlStoreMigrations from "../SqlStoreMigrations.js"
import { mapError } from "./storeError.js"

/** @internal */
export const versionOf = (migrations: Readonly<Record<string, unknown>>): number =>
  Math.max(0, ...Object.keys(migrations).map((key) => Number.parseInt(key, 10)).filter(Number.isSafeInteger))

/** @internal */
export const databaseVersion = (table: string): Effect.Effect<number, SqlError, SqlClient.SqlClient> =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const exists = yield* sql.onDialectOrElse({
      pg: () => Effect.map(sql<{ readonly found: boolean }>`SELECT to_regclass(${table}) IS NOT NULL AS found`, (rows) => rows[0]?.found === true),
      orElse: () =>
        Effect.map(sql`SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = ${table}`, (rows) => rows.length > 0)
    })
    if (!exists) return 0
    const rows = yield* sql<{ readonly version: number | null }>`SELECT max(migration_id) AS version FROM ${sql(table)}`
    return rows[0]?.version ?? 0
  })

// Created in the migrating transaction rather than by `Migrator` (which creates it before its own
// transaction, where processes opening the database at once race).
const ensureTable = (table: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql.onDialectOrElse({
      pg: () =>
        sql`CREATE TABLE IF NOT EXISTS ${sql(table)} (
          migration_id integer PRIMARY KEY,
          created_at timestamp with time zone NOT NULL DEFAULT now(),
          name text NOT NULL
        )`,
      orElse: () =>
        sql`CREATE TABLE IF NOT EXISTS ${sql(table)} (
          migration_id integer PRIMARY KEY NOT NULL,
          created_at datetime NOT NULL DEFAULT current_timestamp,
          name VARCHAR(255) NOT NULL
        )`
    }))

const run = Migrator.make({})

/** @internal */
export const migrate = (
  options: SqlStoreMigrations.Options
): Effect.Effect<ReadonlyArray<readonly [id: number, name: string]>, StoreError.StoreError, SqlClient.SqlClient> =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const table = options.table ?? "effect_sql_migrations"
    const codeVersion = versionOf(options.migrations)
    return yield* sql.withTransaction(Effect.gen(function*() {
      if (options.prepare !== undefined) yield* options.prepare
      yield* ensureTable(table)
      const version = yield* databaseVersion(table)
      if (version > codeVersion) {
        return yield* new StoreError.StoreError({
          reason: "Incompatible",
          message: `The database schema is version ${version}, newer than version ${codeVersion} this code knows: ` +
            `it was written by a newer animal-store. Upgrade animal-store, or ${options.otherwise}.`
        })
      }
      const applied = yield* run({ loader: Migrator.fromRecord(options.migrations), table }).pipe(
        Effect.mapError((error) =>
          error._tag === "MigrationError"
            ? new StoreError.StoreError({ reason: "Unknown", message: `Migrating the database failed: ${error.message}`, cause: error })
            : error
        )
      )
      if (options.complete !== undefined) yield* options.complete(codeVersion)
      return applied
    }))
  }).pipe(mapError(options.classifier, "Migrating the database"))
