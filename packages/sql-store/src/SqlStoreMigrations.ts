/**
 * A store's versioned schema, applied with @effect/sql's `Migrator` when the
 * store is opened: migration `N_name` brings the schema to version `N`. The
 * pending migrations are applied in one transaction (all or none), and a
 * database newer than the code is refused as "Incompatible".
 *
 * @since 1.0.0
 */
import type { StoreError } from "@animal-store/core"
import type * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import type { Effect } from "effect"
import * as internal from "./internal/migrations.js"
import type * as SqlStoreError from "./SqlStoreError.js"

/**
 * The default table of the applied migrations (`Migrator`'s).
 *
 * @since 1.0.0
 * @category constants
 */
export const table = "effect_sql_migrations"

/**
 * @since 1.0.0
 * @category models
 */
export interface Options {
  /** The migrations by `<version>_<name>`. */
  readonly migrations: Readonly<Record<string, Effect.Effect<void, unknown, SqlClient.SqlClient>>>
  readonly classifier: SqlStoreError.Classifier
  /** The table of applied migrations, `schema.name` when qualified. Default `effect_sql_migrations`. */
  readonly table?: string | undefined
  /** Runs first in the transaction (a lock, a schema to create). */
  readonly prepare?: Effect.Effect<void, SqlError, SqlClient.SqlClient> | undefined
  /** Runs last in the transaction, with the code's version. */
  readonly complete?: ((version: number) => Effect.Effect<void, SqlError, SqlClient.SqlClient>) | undefined
  /** What else to do than upgrading, in the "Incompatible" message: `use another database`. */
  readonly otherwise: string
}

/**
 * The schema version of `migrations`: its highest migration version.
 *
 * @since 1.0.0
 * @category constructors
 */
export const versionOf: (migrations: Readonly<Record<string, unknown>>) => number = internal.versionOf

/**
 * The schema version of the database: its highest applied migration, 0 when
 * it has none.
 *
 * @since 1.0.0
 * @category queries
 */
export const databaseVersion: (table?: string) => Effect.Effect<number, SqlError, SqlClient.SqlClient> = (
  name = table
) => internal.databaseVersion(name)

/**
 * Brings the database to the version of `options.migrations`, returning the
 * migrations applied. Fails with "Incompatible" when the database is newer.
 *
 * @since 1.0.0
 * @category migrations
 */
export const migrate: (
  options: Options
) => Effect.Effect<ReadonlyArray<readonly [id: number, name: string]>, StoreError.StoreError, SqlClient.SqlClient> =
  internal.migrate
