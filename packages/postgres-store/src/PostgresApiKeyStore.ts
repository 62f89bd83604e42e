/**
 * `ApiKeyStore` on PostgreSQL. A row holds a key's digest, never its secret;
 * the digest is unique, which makes inserting idempotent, also when several
 * processes insert one digest at once.
 *
 * @since 1.0.0
 */
import { ApiKey, ApiKeyStore, StoreRows } from "@animal-store/core"
import type { SqlError } from "@effect/sql/SqlError"
import { Effect, Layer, Option } from "effect"
import { mapStoreError } from "./internal/storeError.js"
import * as PostgresDatabase from "./PostgresDatabase.js"

type ApiKeyRow = readonly [
  id: string,
  prefix: string,
  digest: string,
  plan: ApiKey.ApiKey["plan"],
  perMinute: string,
  perDay: string,
  environment: ApiKey.Environment,
  createdAt: string,
  revokedAt: string | null
]

// Rows hold what `insert` stored (a valid `ApiKey`): `StoreRows.apiKey`,
// without validation. `bigint` columns arrive as strings.
const toApiKey = (row: ApiKeyRow): ApiKey.ApiKey =>
  StoreRows.apiKey({
    id: row[0],
    prefix: row[1],
    digest: row[2],
    plan: row[3],
    perMinute: Number(row[4]),
    perDay: Number(row[5]),
    environment: row[6],
    createdAt: new Date(Number(row[7])),
    revokedAt: row[8] === null ? Option.none() : Option.some(new Date(Number(row[8])))
  })

/**
 * @since 1.0.0
 * @category constructors
 */
export const make: Effect.Effect<ApiKeyStore.ApiKeyStoreService, never, PostgresDatabase.PostgresDatabase> =
  Effect.map(PostgresDatabase.PostgresDatabase, ({ sql, table }) => {
    const keys = table("api_keys")
    const columns = "id, prefix, digest, plan, per_minute, per_day, environment, created_at, revoked_at"
    const insertSql = `INSERT INTO ${keys}
        (id, prefix, digest, plan, per_minute, per_day, environment, created_at, revoked_at)
      VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
      ON CONFLICT (digest) DO NOTHING`
    const findByDigestSql = `SELECT ${columns} FROM ${keys} WHERE digest = $1`
    const listSql = `SELECT ${columns} FROM ${keys} ORDER BY created_at, seq`
    const revokeSql = `UPDATE ${keys} SET revoked_at = coalesce(revoked_at, $1) WHERE id = $2 RETURNING ${columns}`
    const rows = (text: string, params: ReadonlyArray<unknown> = []) =>
      sql.unsafe(text, params).values as unknown as Effect.Effect<ReadonlyArray<ApiKeyRow>, SqlError>
    const findByDigest = (digest: string) =>
      Effect.map(rows(findByDigestSql, [digest]), (found) => Option.map(Option.fromNullable(found[0]), toApiKey))
    return {
      insert: (key) =>
        sql.unsafe(insertSql, [
          key.id,
          key.prefix,
          key.digest,
          key.plan,
          key.limits.perMinute,
          key.limits.perDay,
          key.environment,
          key.createdAt.getTime(),
          Option.isSome(key.revokedAt) ? key.revokedAt.value.getTime() : null
        ]).pipe(
          // A second statement, with a snapshot of its own: it sees the row of
          // a concurrent insert this one conflicted with. Keys are never deleted.
          Effect.zipRight(findByDigest(key.digest)),
          Effect.map(Option.getOrThrow),
          mapStoreError("Storing an API key")
        ),
      findByDigest: (digest) => findByDigest(digest).pipe(mapStoreError("Reading an API key")),
      list: Effect.map(rows(listSql), (found) => found.map(toApiKey)).pipe(mapStoreError("Listing API keys")),
      revoke: (id, at) =>
        rows(revokeSql, [at.getTime(), id]).pipe(
          Effect.map((found) => Option.map(Option.fromNullable(found[0]), toApiKey)),
          mapStoreError("Revoking an API key")
        )
    }
  })

/**
 * @since 1.0.0
 * @category layers
 */
export const layer: Layer.Layer<ApiKeyStore.ApiKeyStore, never, PostgresDatabase.PostgresDatabase> = Layer.effect(
  ApiKeyStore.ApiKeyStore,
  make
)
