/**
 * What the store's ports run on: a `SqlClient` of PostgreSQL (the store's own
 * pool, or a host's `PgClient`) and the schema holding the store's tables.
 *
 * @since 1.0.0
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { Context, Effect, Layer } from "effect"

/**
 * @since 1.0.0
 * @category models
 */
export interface PostgresDatabase {
  readonly sql: SqlClient.SqlClient
  /** The schema of the store's tables (`public` unless configured). */
  readonly schema: string
  /** The quoted, schema-qualified name of one of the store's tables, for SQL texts. */
  readonly table: (name: string) => string
  /**
   * The database's URL, for connections of the store's own outside the pool
   * (listening to notifications); without it, the store does without them.
   */
  readonly listenUrl?: string | undefined
}

/**
 * @since 1.0.0
 * @category tags
 */
export const PostgresDatabase = Context.GenericTag<PostgresDatabase>("@animal-store/postgres-store/PostgresDatabase")

/**
 * The default schema.
 *
 * @since 1.0.0
 * @category constants
 */
export const defaultSchema = "public"

/**
 * Whether `schema` is a name the store accepts: lower-case letters, digits and
 * `_`, not starting with a digit, at most 63 characters (PostgreSQL's limit),
 * so it needs no quoting and reads the same everywhere.
 *
 * @since 1.0.0
 * @category guards
 */
export const isSchemaName = (schema: string): boolean => /^[a-z_][a-z0-9_]{0,62}$/.test(schema)

/**
 * The `PostgresDatabase` of `sql` with the store's tables in `schema`.
 * Throws on a schema name `isSchemaName` refuses.
 *
 * @since 1.0.0
 * @category constructors
 */
export const make = (
  sql: SqlClient.SqlClient,
  schema: string = defaultSchema,
  listenUrl?: string | undefined
): PostgresDatabase => {
  if (!isSchemaName(schema)) {
    throw new Error(`Invalid schema name "${schema}": expected lower-case letters, digits and _ (at most 63)`)
  }
  return { sql, schema, table: (name) => `"${schema}"."${name}"`, listenUrl }
}

/**
 * The `PostgresDatabase` on the `SqlClient` of the context.
 *
 * @since 1.0.0
 * @category layers
 */
export const layer = (schema: string = defaultSchema): Layer.Layer<PostgresDatabase, never, SqlClient.SqlClient> =>
  Layer.effect(PostgresDatabase, Effect.map(SqlClient.SqlClient, (sql) => make(sql, schema)))
