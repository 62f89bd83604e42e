/**
 * The versioned schema of the SQLite store, applied with @effect/sql's
 * `Migrator` when the store is opened. Migration `N_name` brings the schema to
 * version `N`; applied migrations are recorded in `effect_sql_migrations`, and
 * `PRAGMA user_version` mirrors the version for other SQLite tools.
 *
 * @since 1.0.0
 */
import type { StoreError } from "@animal-store/core"
import { SqlStoreMigrations } from "@animal-store/sql-store"
import * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import { Effect } from "effect"
import { immediate } from "./internal/immediate.js"
import { classifier, mapStoreError } from "./internal/storeError.js"

/**
 * The table `Migrator` records applied migrations in.
 *
 * @since 1.0.0
 * @category constants
 */
export const table: string = SqlStoreMigrations.table

/**
 * The migrations of the store, by `<version>_<name>`.
 *
 * @since 1.0.0
 * @category migrations
 */
export const migrations: Readonly<Record<string, Effect.Effect<void, SqlError, SqlClient.SqlClient>>> = {
  "1_create_pets": Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.andThen(
      sql`CREATE TABLE pets (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        name TEXT NOT NULL CHECK (name <> ''),
        category_id INTEGER NOT NULL CHECK (category_id >= 1),
        status TEXT NOT NULL CHECK (status IN ('available', 'pending', 'sold'))
      ) STRICT`,
      sql`CREATE INDEX pets_status_id ON pets (status, id)`
    )),
  "2_create_api_keys": Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.andThen(
      sql`CREATE TABLE api_keys (
        id TEXT NOT NULL PRIMARY KEY,
        digest TEXT NOT NULL UNIQUE,
        prefix TEXT NOT NULL,
        plan TEXT NOT NULL CHECK (plan IN ('free', 'pro', 'business', 'enterprise')),
        per_minute INTEGER NOT NULL CHECK (per_minute >= 1),
        per_day INTEGER NOT NULL CHECK (per_day >= 1),
        environment TEXT NOT NULL CHECK (environment IN ('production', 'staging')),
        created_at INTEGER NOT NULL,
        revoked_at INTEGER
      ) STRICT`,
      sql`CREATE INDEX api_keys_created_at ON api_keys (created_at)`
    )),
  "3_create_rate_limits": Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql`CREATE TABLE rate_limits (
      subject TEXT NOT NULL PRIMARY KEY,
      minute_start INTEGER NOT NULL,
      minute_count INTEGER NOT NULL,
      day_start INTEGER NOT NULL,
      day_count INTEGER NOT NULL,
      refused_count INTEGER NOT NULL,
      banned_until INTEGER NOT NULL
    ) STRICT, WITHOUT ROWID`),
  "4_create_idempotency_keys": Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.andThen(
      sql`CREATE TABLE idempotency_keys (
        scope TEXT NOT NULL,
        key TEXT NOT NULL CHECK (length(key) BETWEEN 1 AND 255),
        fingerprint TEXT NOT NULL,
        expires_at INTEGER NOT NULL,
        pet_id INTEGER NOT NULL CHECK (pet_id >= 1),
        pet_name TEXT NOT NULL CHECK (pet_name <> ''),
        pet_category_id INTEGER NOT NULL CHECK (pet_category_id >= 1),
        pet_status TEXT NOT NULL CHECK (pet_status IN ('available', 'pending', 'sold')),
        PRIMARY KEY (scope, key)
      ) STRICT`,
      sql`CREATE INDEX idempotency_keys_expires_at ON idempotency_keys (expires_at)`
    )),
  // The store's secrets (`SqlStoreSecrets`), such as the cursor secret:
  // one random value by name, made by the first process that needs it.
  "5_create_store_secrets": Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql`CREATE TABLE store_secrets (
      name TEXT NOT NULL PRIMARY KEY,
      value TEXT NOT NULL CHECK (length(value) >= 32)
    ) STRICT, WITHOUT ROWID`),
  // Idempotency records keyed by their animal's id: appended in creation (so
  // expiry) order, purged from the head; the animal is read from `pets`.
  "6_idempotency_keys_by_pet": Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.all([
      sql`CREATE TABLE idempotency_keys_by_pet (
        pet_id INTEGER NOT NULL PRIMARY KEY CHECK (pet_id >= 1),
        scope TEXT NOT NULL,
        key TEXT NOT NULL CHECK (length(key) BETWEEN 1 AND 255),
        fingerprint TEXT NOT NULL,
        expires_at INTEGER NOT NULL
      ) STRICT`,
      sql`INSERT INTO idempotency_keys_by_pet (pet_id, scope, key, fingerprint, expires_at)
        SELECT pet_id, scope, key, fingerprint, expires_at FROM idempotency_keys ORDER BY pet_id`,
      sql`DROP TABLE idempotency_keys`,
      sql`ALTER TABLE idempotency_keys_by_pet RENAME TO idempotency_keys`,
      sql`CREATE UNIQUE INDEX idempotency_keys_scope_key ON idempotency_keys (scope, key)`
    ], { discard: true })),
  // Records found by their key alone (the scope is compared in the row).
  "7_idempotency_keys_by_key": Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.all([
      sql`DROP INDEX idempotency_keys_scope_key`,
      sql`CREATE INDEX idempotency_keys_key ON idempotency_keys (key)`
    ], { discard: true })),
  // No index of keys in the file: each process keeps one in memory (`internal/keyIndex.ts`).
  "8_idempotency_keys_in_memory": Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql`DROP INDEX idempotency_keys_key`.pipe(Effect.asVoid)),
  // A sliding minute reads the count of the minute before the current one.
  "9_rate_limits_previous_minute": Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql`ALTER TABLE rate_limits ADD COLUMN previous_minute_count INTEGER NOT NULL DEFAULT 0`.pipe(Effect.asVoid)),
  // Keys that expire, count a sliding minute, and keep their previous secret
  // (its digest) for a grace period after a rotation.
  "10_api_keys_expiry_window_rotation": Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.all([
      sql`ALTER TABLE api_keys ADD COLUMN expires_at INTEGER`,
      sql`ALTER TABLE api_keys ADD COLUMN minute_window TEXT NOT NULL DEFAULT 'fixed'
        CHECK (minute_window IN ('fixed', 'sliding'))`,
      sql`ALTER TABLE api_keys ADD COLUMN previous_digest TEXT`,
      sql`ALTER TABLE api_keys ADD COLUMN previous_prefix TEXT`,
      sql`ALTER TABLE api_keys ADD COLUMN previous_until INTEGER`,
      sql`CREATE UNIQUE INDEX api_keys_previous_digest ON api_keys (previous_digest)`
    ], { discard: true })),
  // Records found through an index of keys in the file again (record 0005): with a turn's writes
  // committed together, the memory index no longer paid for its code.
  "11_idempotency_keys_indexed": Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql`CREATE INDEX idempotency_keys_key ON idempotency_keys (key)`.pipe(Effect.asVoid))
}

/**
 * The schema version this code writes: the highest migration version.
 *
 * @since 1.0.0
 * @category constants
 */
export const schemaVersion: number = SqlStoreMigrations.versionOf(migrations)

/**
 * The schema version of the open database: its highest applied migration, 0
 * when it has none.
 *
 * @since 1.0.0
 * @category queries
 */
export const databaseVersion: Effect.Effect<number, SqlError, SqlClient.SqlClient> = SqlStoreMigrations.databaseVersion(table)

/**
 * Brings the database to the version of `record` in one `BEGIN IMMEDIATE`
 * transaction (the write lock taken before the version is read): either
 * every pending migration is applied or none is, and processes opening the
 * same file at once migrate it one after the other. Fails with `StoreError`
 * "Incompatible" when the database is newer than `record`; "ReadOnly",
 * "Corrupt", "Unavailable" when it cannot be written.
 *
 * @since 1.0.0
 * @category migrations
 */
export const migrateTo = (
  record: Readonly<Record<string, Effect.Effect<void, unknown, SqlClient.SqlClient>>>
): Effect.Effect<ReadonlyArray<readonly [id: number, name: string]>, StoreError.StoreError, SqlClient.SqlClient> =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    immediate(
      sql,
      SqlStoreMigrations.migrate({
        migrations: record,
        classifier,
        table,
        complete: (version) => Effect.asVoid(sql.unsafe(`PRAGMA user_version = ${version}`)),
        otherwise: "open another database file"
      })
    )).pipe(mapStoreError("Migrating the database"))

/**
 * Brings the database to `schemaVersion`.
 *
 * @since 1.0.0
 * @category migrations
 */
export const migrate: Effect.Effect<
  ReadonlyArray<readonly [id: number, name: string]>,
  StoreError.StoreError,
  SqlClient.SqlClient
> = migrateTo(migrations)
