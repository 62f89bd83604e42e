/**
 * `ApiKeyStore` on SQLite. A row holds a key's digest, never its secret; the
 * digest is unique, which makes inserting idempotent.
 *
 * Keys found by digest are kept in memory while no other connection to the
 * file (another process, or another store in this one) has committed
 * anything: SQLite's `PRAGMA data_version`, read at most once a turn of the
 * event loop, tells. A key revoked elsewhere is therefore refused from the
 * first turn that starts after the revocation committed (a request read in
 * the same turn as the commit counts as concurrent with it); one revoked
 * through this store at once. Writing the `api_keys` table by hand through
 * the store's own `SqlClient` is not seen by the kept keys.
 *
 * @since 1.0.0
 */
import type { ApiKey } from "@animal-store/core"
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
const dataVersionSql = "PRAGMA data_version"

/**
 * The keys read by digest, valid while the connection's `data_version` (which
 * only another connection's commit changes) stays the one they were read at.
 */
const makeFoundKeys = () => {
  const found = new Map<string, Option.Some<ApiKey.ApiKey>>()
  let readAt: number | undefined
  /** Whether `data_version` was read in this turn of the event loop. */
  let checked = false
  const uncheck = () => {
    checked = false
  }
  return {
    /** Forgets every key when another connection committed since they were read. */
    check: (connection: SqliteDatabase.Connection): void => {
      if (checked) return
      checked = true
      setImmediate(uncheck)
      const version = connection.firstValues<[number]>(dataVersionSql)![0]
      if (version !== readAt) {
        found.clear()
        readAt = version
      }
    },
    get: (digest: string): Option.Some<ApiKey.ApiKey> | undefined => found.get(digest),
    keep: (key: ApiKey.ApiKey): Option.Some<ApiKey.ApiKey> => {
      const some = Option.some(key) as Option.Some<ApiKey.ApiKey>
      if (found.size >= foundKeysMax) found.clear()
      found.set(key.digest, some)
      return some
    },
    forget: (key: ApiKey.ApiKey): void => {
      found.delete(key.digest)
    }
  }
}

/** The most keys kept at once; a store serves few keys per process, so going over forgets them all. */
const foundKeysMax = 10_000

/**
 * @since 1.0.0
 * @category constructors
 */
export const make: Effect.Effect<ApiKeyStore.ApiKeyStoreService, never, SqliteDatabase.SqliteDatabase> = Effect.map(
  SqliteDatabase.SqliteDatabase,
  (database) => {
    const found = makeFoundKeys()
    const read = (digest: string) =>
      database.use("Reading an API key", (connection) => {
        // Inside a transaction the data_version is that of its start: read the row.
        const inTransaction = database.inTransaction()
        if (!inTransaction) {
          found.check(connection)
          const kept = found.get(digest)
          if (kept !== undefined) return kept
        }
        const row = connection.firstValues<StoreRows.ApiKeyRow>(findByDigestSql, digest)
        if (row === undefined) return Option.none()
        const key = StoreRows.apiKey(row)
        return inTransaction ? Option.some(key) : found.keep(key)
      })
    return {
      insert: (key) =>
        database.use("Storing an API key", (connection) => {
          connection.run(insertSql, ...StoreRows.apiKeyRow(key))
          // A row with this digest exists: the insert stored it or conflicted with it, and keys are never deleted.
          return StoreRows.apiKey(connection.firstValues<StoreRows.ApiKeyRow>(findByDigestSql, key.digest)!)
        }),
      findByDigest: read,
      list: database.use("Listing API keys", (connection) => connection.values<StoreRows.ApiKeyRow>(listSql).map(StoreRows.apiKey)),
      revoke: (id, at) =>
        database.use("Revoking an API key", (connection) => {
          const row = connection.firstValues<StoreRows.ApiKeyRow>(revokeSql, at.getTime(), id)
          if (row === undefined) return Option.none()
          const key = StoreRows.apiKey(row)
          found.forget(key)
          return Option.some(key)
        })
    }
  }
)

/**
 * @since 1.0.0
 * @category layers
 */
export const layer: Layer.Layer<ApiKeyStore.ApiKeyStore, never, SqliteDatabase.SqliteDatabase> = Layer.effect(
  ApiKeyStore.ApiKeyStore,
  make
)
