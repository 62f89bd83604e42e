/**
 * `ApiKeyStore` on SQLite. A row holds a key's digest, never its secret; the
 * digest is unique, which makes inserting idempotent.
 *
 * @since 1.0.0
 */
import { ApiKey, ApiKeyStore, StoreRows } from "@animal-store/core"
import { Effect, Layer, Option } from "effect"
import * as SqliteDatabase from "./SqliteDatabase.js"

type ApiKeyRow = readonly [
  id: string,
  prefix: string,
  digest: string,
  plan: ApiKey.ApiKey["plan"],
  perMinute: number,
  perDay: number,
  environment: ApiKey.Environment,
  createdAt: number,
  revokedAt: number | null
]

// Rows are read as arrays of column values (cheaper than objects) and hold
// what `insert` stored (a valid `ApiKey`; STRICT types and CHECK constraints
// keep their shape): `StoreRows.apiKey`, without validation.
const toApiKey = (row: ApiKeyRow): ApiKey.ApiKey =>
  StoreRows.apiKey({
    id: row[0],
    prefix: row[1],
    digest: row[2],
    plan: row[3],
    perMinute: row[4],
    perDay: row[5],
    environment: row[6],
    createdAt: new Date(row[7]),
    revokedAt: row[8] === null ? Option.none() : Option.some(new Date(row[8]))
  })

const columns = "id, prefix, digest, plan, per_minute, per_day, environment, created_at, revoked_at"
const insertSql = `INSERT INTO api_keys
    (id, prefix, digest, plan, per_minute, per_day, environment, created_at, revoked_at)
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
        connection.run(
          insertSql,
          key.id,
          key.prefix,
          key.digest,
          key.plan,
          key.limits.perMinute,
          key.limits.perDay,
          key.environment,
          key.createdAt.getTime(),
          Option.isSome(key.revokedAt) ? key.revokedAt.value.getTime() : null
        )
        // A row with this digest exists: the insert stored it or conflicted with it, and keys are never deleted.
        return toApiKey(connection.firstValues<ApiKeyRow>(findByDigestSql, key.digest)!)
      }),
    findByDigest: (digest) =>
      database.use("Reading an API key", (connection) => {
        const row = connection.firstValues<ApiKeyRow>(findByDigestSql, digest)
        return row === undefined ? Option.none() : Option.some(toApiKey(row))
      }),
    list: database.use("Listing API keys", (connection) => connection.values<ApiKeyRow>(listSql).map(toApiKey)),
    revoke: (id, at) =>
      database.use("Revoking an API key", (connection) => {
        const row = connection.firstValues<ApiKeyRow>(revokeSql, at.getTime(), id)
        return row === undefined ? Option.none() : Option.some(toApiKey(row))
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
