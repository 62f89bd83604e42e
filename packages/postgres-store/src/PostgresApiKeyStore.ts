/**
 * `ApiKeyStore` on PostgreSQL. A row holds a key's digest, never its secret;
 * the digest is unique, which makes inserting idempotent, also when several
 * processes insert one digest at once.
 *
 * @since 1.0.0
 */
import { ApiKeyStore } from "@animal-store/core"
import { ApiKeyRow } from "@animal-store/sql-store"
import type { SqlError } from "@effect/sql/SqlError"
import { Effect, Layer, Option } from "effect"
import { mapStoreError } from "./internal/storeError.js"
import * as PostgresDatabase from "./PostgresDatabase.js"

// Rows hold what `insert` stored (a valid `ApiKey`); `bigint` columns arrive as strings.
/**
 * @since 1.0.0
 * @category constructors
 */
export const make: Effect.Effect<ApiKeyStore.ApiKeyStoreService, never, PostgresDatabase.PostgresDatabase> =
  Effect.map(PostgresDatabase.PostgresDatabase, ({ sql, table }) => {
    const keys = table("api_keys")
    const columns = ApiKeyRow.columns
    const insertSql = `INSERT INTO ${keys} (${columns})
      VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
      ON CONFLICT (digest) DO NOTHING`
    const findByDigestSql = `SELECT ${columns} FROM ${keys} WHERE digest = $1`
    const listSql = `SELECT ${columns} FROM ${keys} ORDER BY created_at, seq`
    const revokeSql = `UPDATE ${keys} SET revoked_at = coalesce(revoked_at, $1) WHERE id = $2 RETURNING ${columns}`
    const rows = (text: string, params: ReadonlyArray<unknown> = []) =>
      sql.unsafe(text, params).values as unknown as Effect.Effect<ReadonlyArray<ApiKeyRow.ApiKeyRow>, SqlError>
    const findByDigest = (digest: string) =>
      Effect.map(rows(findByDigestSql, [digest]), (found) => Option.map(Option.fromNullable(found[0]), ApiKeyRow.toApiKey))
    return {
      insert: (key) =>
        sql.unsafe(insertSql, ApiKeyRow.fromApiKey(key)).pipe(
          // A second statement, with a snapshot of its own: it sees the row of
          // a concurrent insert this one conflicted with. Keys are never deleted.
          Effect.zipRight(findByDigest(key.digest)),
          Effect.map(Option.getOrThrow),
          mapStoreError("Storing an API key")
        ),
      findByDigest: (digest) => findByDigest(digest).pipe(mapStoreError("Reading an API key")),
      list: Effect.map(rows(listSql), (found) => found.map(ApiKeyRow.toApiKey)).pipe(mapStoreError("Listing API keys")),
      revoke: (id, at) =>
        rows(revokeSql, [at.getTime(), id]).pipe(
          Effect.map((found) => Option.map(Option.fromNullable(found[0]), ApiKeyRow.toApiKey)),
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
