/**
 * `ApiKeyStore` on SQLite. A row holds a key's digest, never its secret; the
 * digest is unique, which makes inserting idempotent.
 *
 * @since 1.0.0
 */
import { ApiKey, ApiKeyStore } from "@animal-store/core"
import * as SqlClient from "@effect/sql/SqlClient"
import { Effect, Layer, Option } from "effect"
import { mapStoreError } from "./internal/storeError.js"

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

const toApiKey = (row: ApiKeyRow): ApiKey.ApiKey =>
  new ApiKey.ApiKey({
    id: row.id,
    prefix: row.prefix,
    digest: row.digest,
    plan: row.plan,
    limits: { perMinute: row.perMinute, perDay: row.perDay },
    environment: row.environment,
    createdAt: new Date(row.createdAt),
    revokedAt: Option.map(Option.fromNullable(row.revokedAt), (at) => new Date(at))
  })

/**
 * @since 1.0.0
 * @category constructors
 */
export const make: Effect.Effect<ApiKeyStore.ApiKeyStoreService, never, SqlClient.SqlClient> = Effect.map(
  SqlClient.SqlClient,
  (sql) => {
    const columns = sql.literal(
      "id, prefix, digest, plan, per_minute AS perMinute, per_day AS perDay, environment, " +
        "created_at AS createdAt, revoked_at AS revokedAt"
    )
    const findByDigest = (digest: string) =>
      Effect.map(
        sql<ApiKeyRow>`SELECT ${columns} FROM api_keys WHERE digest = ${digest}`,
        (rows) => Option.map(Option.fromNullable(rows[0]), toApiKey)
      )
    return {
      insert: (key) =>
        sql`INSERT INTO api_keys
            (id, prefix, digest, plan, per_minute, per_day, environment, created_at, revoked_at)
          VALUES (${key.id}, ${key.prefix}, ${key.digest}, ${key.plan}, ${key.limits.perMinute}, ${key.limits.perDay},
            ${key.environment}, ${key.createdAt.getTime()}, ${Option.getOrNull(Option.map(key.revokedAt, (at) => at.getTime()))})
          ON CONFLICT (digest) DO NOTHING`.pipe(
          Effect.zipRight(findByDigest(key.digest)),
          Effect.map(Option.getOrElse(() => key)),
          mapStoreError("Storing an API key")
        ),
      findByDigest: (digest) => findByDigest(digest).pipe(mapStoreError("Reading an API key")),
      list: sql<ApiKeyRow>`SELECT ${columns} FROM api_keys ORDER BY created_at, rowid`.pipe(
        Effect.map((rows) => rows.map(toApiKey)),
        mapStoreError("Listing API keys")
      ),
      revoke: (id, at) =>
        sql<ApiKeyRow>`UPDATE api_keys SET revoked_at = coalesce(revoked_at, ${at.getTime()}) WHERE id = ${id}
          RETURNING ${columns}`.pipe(
          Effect.map((rows) => Option.map(Option.fromNullable(rows[0]), toApiKey)),
          mapStoreError("Revoking an API key")
        )
    }
  }
)

/**
 * @since 1.0.0
 * @category layers
 */
export const layer: Layer.Layer<ApiKeyStore.ApiKeyStore, never, SqlClient.SqlClient> = Layer.effect(
  ApiKeyStore.ApiKeyStore,
  make
)
