/**
 * `ApiKeyStore` on SQLite. A row holds a key's digest, never its secret; the
 * digest is unique, which makes inserting idempotent.
 *
 * @since 1.0.0
 */
import { ApiKey, ApiKeyStore } from "@animal-store/core"
import { Effect, Layer, Option } from "effect"
import * as SqliteDatabase from "./SqliteDatabase.js"

interface ApiKeyRow {
  readonly id: string
  readonly prefix: string
  readonly digest: string
  readonly plan: ApiKey.ApiKey["plan"]
  readonly perMinute: number
  readonly perDay: number
  readonly environment: ApiKey.Environment
  readonly createdAt: number
  readonly revokedAt: number | null
}

// Rows hold what `insert` stored (a valid `ApiKey`; STRICT types and CHECK
// constraints keep their shape): build the instance without validating it again.
const toApiKey = (row: ApiKeyRow): ApiKey.ApiKey =>
  new ApiKey.ApiKey({
    id: row.id,
    prefix: row.prefix,
    digest: row.digest,
    plan: row.plan,
    limits: { perMinute: row.perMinute, perDay: row.perDay },
    environment: row.environment,
    createdAt: new Date(row.createdAt),
    revokedAt: row.revokedAt === null ? Option.none() : Option.some(new Date(row.revokedAt))
  }, true)

const columns = "id, prefix, digest, plan, per_minute AS perMinute, per_day AS perDay, environment, " +
  "created_at AS createdAt, revoked_at AS revokedAt"
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
        const stored = connection.get<ApiKeyRow>(findByDigestSql, key.digest)
        return stored === undefined ? key : toApiKey(stored)
      }),
    findByDigest: (digest) =>
      database.use("Reading an API key", (connection) => {
        const row = connection.get<ApiKeyRow>(findByDigestSql, digest)
        return row === undefined ? Option.none() : Option.some(toApiKey(row))
      }),
    list: database.use("Listing API keys", (connection) => connection.all<ApiKeyRow>(listSql).map(toApiKey)),
    revoke: (id, at) =>
      database.use("Revoking an API key", (connection) => {
        const row = connection.get<ApiKeyRow>(revokeSql, at.getTime(), id)
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
