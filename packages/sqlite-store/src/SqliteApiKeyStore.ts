/**
 * `ApiKeyStore` on SQLite. A row holds a key's digest, never its secret; the
 * digest is unique, which makes inserting idempotent.
 *
 * @since 1.0.0
 */
import { ApiKeyStore, StoreRows } from "@animal-store/core"
import { Effect, Layer, Option } from "effect"
import * as SqliteDatabase from "./SqliteDatabase.js"

// Rows are read as arrays of column values (cheaper than objects) and hold
// what `insert` stored (a valid `ApiKey`; STRICT types and CHECK constraints
// keep their shape): `StoreRows.apiKey`, without validation.
const columns = StoreRows.apiKeyColumns
const insertSql = `INSERT INTO api_keys (${columns})
  VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
  ON CONFLICT (digest) DO NOTHING`
const findByDigestSql = `SELECT ${columns} FROM api_keys WHERE digest = ?`
const listSql = `SELECT ${columns} FROM api_keys ORDER BY created_at, rowid`
const revokeSql = `UPDATE api_keys SET revoked_at = coalesce(revoked_at, ?) WHERE id = ? RETURNING ${columns}`

/**
 * @since 1.0.0
 * @category constructors
 */
export const make: Effect.Effect<ApiKeyStore.ApiKeyStoreService, never, SqliteDatabase.SqliteDatabase> = Effect.map(
  SqliteDatabase.SqliteDatabase,
  (database) => ({
    insert: (key) =>
      database.use("Storing an API key", (connection) => {
        connection.run(insertSql, ...StoreRows.apiKeyRow(key))
        // A row with this digest exists: the insert stored it or conflicted with it, and keys are never deleted.
        return StoreRows.apiKey(connection.firstValues<StoreRows.ApiKeyRow>(findByDigestSql, key.digest)!)
      }),
    findByDigest: (digest) =>
      database.use("Reading an API key", (connection) => {
        const row = connection.firstValues<StoreRows.ApiKeyRow>(findByDigestSql, digest)
        return row === undefined ? Option.none() : Option.some(StoreRows.apiKey(row))
      }),
    list: database.use("Listing API keys", (connection) => connection.values<StoreRows.ApiKeyRow>(listSql).map(StoreRows.apiKey)),
    revoke: (id, at) =>
      database.use("Revoking an API key", (connection) => {
        const row = connection.firstValues<StoreRows.ApiKeyRow>(revokeSql, at.getTime(), id)
        return row === undefined ? Option.none() : Option.some(StoreRows.apiKey(row))
      })
  })
)

/**
 * @since 1.0.0
 * @category layers
 */
export const layer: Layer.Layer<ApiKeyStore.ApiKeyStore, never, SqliteDatabase.SqliteDatabase> = Layer.effect(
  ApiKeyStore.ApiKeyStore,
  make
)
