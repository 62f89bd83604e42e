/**
 * The versioned schema of the PostgreSQL store, applied with @effect/sql's `Migrator` when the store
 * opens, under a transaction-level advisory lock (processes starting together migrate one after the
 * other); a schema newer than the code is refused ("Incompatible", `SqlStoreMigrations`).
 *
 * @since 1.0.0
 */
import type { StoreError } from "@animal-store/core"
import { SqlStoreMigrations } from "@animal-store/sql-store"
import * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import { Effect, Record } from "effect"
import { classifier } from "./internal/storeError.js"
import * as PostgresDatabase from "./PostgresDatabase.js"

/**
 * The table `Migrator` records applied migrations in (in the store's schema).
 *
 * @since 1.0.0
 * @category constants
 */
export const table = "effect_sql_migrations"

/**
 * The first key of the advisory lock taken while migrating (the second is the
 * hash of the schema name): "AnSt" in ASCII.
 *
 * @since 1.0.0
 * @category constants
 */
export const advisoryLockKey = 0x416e5374

/**
 * A migration: it runs with the `PostgresDatabase` (and its `SqlClient`).
 *
 * @since 1.0.0
 * @category models
 */
export type Migration = Effect.Effect<void, SqlError, PostgresDatabase.PostgresDatabase>

const statements = (...texts: ReadonlyArray<(db: PostgresDatabase.PostgresDatabase) => string>): Migration =>
  Effect.flatMap(PostgresDatabase.PostgresDatabase, (db) =>
    Effect.forEach(texts, (text) => db.sql.unsafe(text(db)), { discard: true }))

/**
 * The migrations of the store, by `<version>_<name>`.
 *
 * @since 1.0.0
 * @category migrations
 */
export const migrations: Readonly<Record<string, Migration>> = {
  // A text column cannot hold U+0000, which a name may contain: such a name
  // is kept exactly in `name_utf8` (its UTF-8 bytes), and `name` holds it with
  // U+FFFD in place of each U+0000, for people reading the table.
  "1_create_pets": statements(
    (db) =>
      `CREATE TABLE ${db.table("pets")} (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        name text NOT NULL CHECK (name <> ''),
        name_utf8 bytea,
        category_id bigint NOT NULL CHECK (category_id >= 1),
        status text NOT NULL CHECK (status IN ('available', 'pending', 'sold'))
      )`,
    (db) => `CREATE INDEX pets_status_id ON ${db.table("pets")} (status, id)`
  ),
  "2_create_api_keys": statements(
    (db) =>
      `CREATE TABLE ${db.table("api_keys")} (
        seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        id text NOT NULL UNIQUE,
        digest text NOT NULL UNIQUE,
        prefix text NOT NULL,
        plan text NOT NULL CHECK (plan IN ('free', 'pro', 'business', 'enterprise')),
        per_minute bigint NOT NULL CHECK (per_minute >= 1),
        per_day bigint NOT NULL CHECK (per_day >= 1),
        environment text NOT NULL CHECK (environment IN ('production', 'staging')),
        created_at bigint NOT NULL,
        revoked_at bigint
      )`,
    (db) => `CREATE INDEX api_keys_created_at ON ${db.table("api_keys")} (created_at, seq)`
  ),
  // A row is created with NULL counters the first time a subject is seen (the
  // statement that locks it), and means "no state yet" until it is written.
  "3_create_rate_limits": statements((db) =>
    `CREATE TABLE ${db.table("rate_limits")} (
      subject text NOT NULL PRIMARY KEY,
      minute_start bigint,
      minute_count bigint,
      day_start bigint,
      day_count bigint,
      refused_count bigint,
      banned_until bigint
    )`
  ),
  // The record of an Idempotency-Key: the animal is `pet_id` (animals never
  // change, so a replay reads it from `pets`). A row whose fingerprint is NULL
  // exists only inside the transaction that locks a new key.
  "4_create_idempotency_keys": statements(
    (db) =>
      `CREATE TABLE ${db.table("idempotency_keys")} (
        scope text NOT NULL,
        key text NOT NULL,
        fingerprint text,
        expires_at bigint,
        pet_id bigint REFERENCES ${db.table("pets")} (id),
        PRIMARY KEY (scope, key)
      )`,
    (db) => `CREATE INDEX idempotency_keys_expires_at ON ${db.table("idempotency_keys")} (expires_at)`
  ),
  // The store's secrets (`SqlStoreSecrets`), such as the cursor secret:
  // one random value by name, made by the first process that needs it.
  "5_create_store_secrets": statements((db) =>
    `CREATE TABLE ${db.table("store_secrets")} (
      name text NOT NULL PRIMARY KEY,
      value text NOT NULL CHECK (length(value) >= 32)
    )`
  ),
  // A sliding minute reads the count of the minute before the current one;
  // NULL in a row whose counters are NULL (no state yet), as the others.
  "6_rate_limits_previous_minute": statements(
    (db) => `ALTER TABLE ${db.table("rate_limits")} ADD COLUMN previous_minute_count bigint`,
    (db) => `UPDATE ${db.table("rate_limits")} SET previous_minute_count = 0 WHERE minute_start IS NOT NULL`
  ),
  // Keys that expire, count a sliding minute, and keep their previous secret
  // (its digest) for a grace period after a rotation.
  "7_api_keys_expiry_window_rotation": statements(
    (db) =>
      `ALTER TABLE ${db.table("api_keys")}
        ADD COLUMN expires_at bigint,
        ADD COLUMN minute_window text NOT NULL DEFAULT 'fixed' CHECK (minute_window IN ('fixed', 'sliding')),
        ADD COLUMN previous_digest text UNIQUE,
        ADD COLUMN previous_prefix text,
        ADD COLUMN previous_until bigint`
  )
}

/**
 * The schema version this code writes: the highest migration version.
 *
 * @since 1.0.0
 * @category constants
 */
export const schemaVersion: number = SqlStoreMigrations.versionOf(migrations)

/**
 * The schema version of the database: its highest applied migration, 0 when
 * it has none.
 *
 * @since 1.0.0
 * @category queries
 */
export const databaseVersion: Effect.Effect<number, SqlError, PostgresDatabase.PostgresDatabase> = Effect.flatMap(
  PostgresDatabase.PostgresDatabase,
  (db) =>
    SqlStoreMigrations.databaseVersion(`${db.schema}.${table}`).pipe(Effect.provideService(SqlClient.SqlClient, db.sql))
)

/**
 * Brings the database to the version of `record` in one transaction, under
 * the advisory lock of the schema: either every pending migration is applied
 * or none is, and processes opening the same database at once migrate it one
 * after the other. Creates the schema when it does not exist. Fails with
 * `StoreError` "Incompatible" when the database is newer than `record`.
 *
 * @since 1.0.0
 * @category migrations
 */
export const migrateTo = (
  record: Readonly<Record<string, Effect.Effect<void, unknown, PostgresDatabase.PostgresDatabase>>>
): Effect.Effect<
  ReadonlyArray<readonly [id: number, name: string]>,
  StoreError.StoreError,
  PostgresDatabase.PostgresDatabase
> =>
  Effect.flatMap(PostgresDatabase.PostgresDatabase, (db) =>
    SqlStoreMigrations.migrate({
      migrations: Record.map(record, Effect.provideService(PostgresDatabase.PostgresDatabase, db)),
      classifier,
      table: `${db.schema}.${table}`,
      prepare: Effect.gen(function*() {
        yield* db.sql.unsafe(`SELECT pg_advisory_xact_lock($1, hashtext($2))`, [advisoryLockKey, db.schema])
        // Checked first: CREATE SCHEMA IF NOT EXISTS needs the CREATE privilege even when the schema exists.
        const [exists] = yield* db.sql.unsafe<{ readonly found: string | null }>(
          `SELECT to_regnamespace($1)::text AS found`,
          [db.schema]
        )
        if (exists?.found == null) yield* db.sql.unsafe(`CREATE SCHEMA "${db.schema}"`)
      }),
      otherwise: "use another database or schema"
    }).pipe(Effect.provideService(SqlClient.SqlClient, db.sql)))

/**
 * Brings the database to `schemaVersion`.
 *
 * @since 1.0.0
 * @category migrations
 */
export const migrate: Effect.Effect<
  ReadonlyArray<readonly [id: number, name: string]>,
  StoreError.StoreError,
  PostgresDatabase.PostgresDatabase
> = migrateTo(migrations)
