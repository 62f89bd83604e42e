/**
 * `ApiKeyStore` on PostgreSQL: rows hold a key's digest, never its secret. Keys found by digest are
 * kept for at most `keyCacheTtl`, and forgotten at once when a revocation or rotation is announced
 * (`PostgresDatabase.listenUrl`; record 0038).
 *
 * @since 1.0.0
 */
import { ApiKeyStore } from "@animal-store/core"
import { ApiKeyRow, SqlRow } from "@animal-store/sql-store"
import type { Scope } from "effect"
import { Duration, Effect, Layer, Option } from "effect"
import * as FoundKeys from "./internal/foundKeys.js"
import * as Listener from "./internal/listener.js"
import * as Prepared from "./internal/prepared.js"
import { mapStoreError } from "./internal/storeError.js"
import * as PostgresDatabase from "./PostgresDatabase.js"

/**
 * How long a key found by its digest is kept: the longest a revocation made
 * where no notification reaches this process takes to be seen.
 *
 * @since 1.0.0
 * @category constants
 */
export const keyCacheTtl: Duration.Duration = Duration.seconds(1)

/** The types of `ApiKeyRow.columns`, for the parameters of an `INSERT ... SELECT`. */
const columnTypes = ["text", "text", "text", "text", "bigint", "bigint", "text", "bigint", "bigint", "bigint", "text", "text", "text", "bigint"]

// Rows hold what `insert` stored (a valid `ApiKey`); `bigint` columns arrive as strings.
/**
 * The store, and (when the database has a `listenUrl`) its listener of
 * revocations, which the scope stops.
 *
 * @since 1.0.0
 * @category constructors
 */
export const make: Effect.Effect<ApiKeyStore.ApiKeyStoreService, never, PostgresDatabase.PostgresDatabase | Scope.Scope> =
  Effect.gen(function*() {
    const database = yield* PostgresDatabase.PostgresDatabase
    const { listenUrl, schema, sql, table } = database
    const found = FoundKeys.make(yield* Effect.clock, Duration.toMillis(keyCacheTtl))
    const channel = `${FoundKeys.channel}_${schema}`
    if (listenUrl !== undefined) yield* Listener.listen(listenUrl, channel, found.forget)
    const keys = table("api_keys")
    const columns = ApiKeyRow.columns
    // A digest stored as a key's previous one is not inserted again: it finds that key.
    const insertSql = `INSERT INTO ${keys} (${columns})
      SELECT ${columnTypes.map((type, i) => `$${i + 1}::${type}`).join(", ")}
      WHERE NOT EXISTS (SELECT FROM ${keys} WHERE previous_digest = $3)
      ON CONFLICT (digest) DO NOTHING`
    const findByDigestSql = `SELECT ${columns} FROM ${keys} WHERE digest = $1
      UNION ALL SELECT ${columns} FROM ${keys} WHERE previous_digest = $1`
    const listSql = `SELECT ${columns} FROM ${keys} ORDER BY created_at, seq`
    // The notification is sent when the revocation commits.
    const revokeSql = `WITH r AS (UPDATE ${keys} SET revoked_at = coalesce(revoked_at, $1) WHERE id = $2 RETURNING ${columns})
      SELECT ${columns}, pg_notify($3, 'revoked')::text FROM r`
    const rotateSql = `WITH r AS (UPDATE ${keys} SET previous_digest = digest, previous_prefix = prefix, previous_until = $3,
        digest = $1, prefix = $2 WHERE id = $4 RETURNING ${columns})
      SELECT ${columns}, pg_notify($5, 'rotated')::text FROM r`
    // `revokeSql` and `rotateSql` return one more column, after the key's.
    const rows = (text: string, params: ReadonlyArray<unknown> = []) =>
      SqlRow.values(sql.unsafe(text, params), ApiKeyRow.isApiKeyRow)
    const findRows = Prepared.values(database, findByDigestSql, ApiKeyRow.isApiKeyRow)
    const findByDigest = (digest: string) =>
      Effect.map(findRows([digest]), (found) => Option.map(Option.fromNullable(found[0]), ApiKeyRow.toApiKey))
    const findKept = (digest: string) =>
      Effect.suspend(() => {
        const kept = found.get(digest)
        if (kept !== undefined) return Effect.succeed(kept)
        const generation = found.generation()
        return Effect.map(
          findRows([digest]),
          (row) => row[0] === undefined ? Option.none() : found.keep(digest, ApiKeyRow.toApiKey(row[0]), generation)
        )
      })
    /** The key a notifying statement changed, if any; every kept key forgotten. */
    const changed = (returned: ReadonlyArray<ApiKeyRow.ApiKeyRow>) => {
      found.forget()
      return Option.map(Option.fromNullable(returned[0]), ApiKeyRow.toApiKey)
    }
    return {
      insert: (key) =>
        sql.unsafe(insertSql, ApiKeyRow.fromApiKey(key)).pipe(
          // A second statement, with a snapshot of its own: it sees the row of
          // a concurrent insert this one conflicted with. Keys are never deleted.
          Effect.zipRight(findByDigest(key.digest)),
          Effect.map(Option.getOrThrow),
          mapStoreError("Storing an API key")
        ),
      findByDigest: (digest) => findKept(digest).pipe(mapStoreError("Reading an API key")),
      list: Effect.map(rows(listSql), (found) => found.map(ApiKeyRow.toApiKey)).pipe(mapStoreError("Listing API keys")),
      revoke: (id, at) =>
        rows(revokeSql, [at.getTime(), id, channel]).pipe(Effect.map(changed), mapStoreError("Revoking an API key")),
      rotate: (id, next, until) =>
        rows(rotateSql, [next.digest, next.prefix, until.getTime(), id, channel]).pipe(
          Effect.map(changed),
          mapStoreError("Rotating an API key")
        )
    }
  })

/**
 * @since 1.0.0
 * @category layers
 */
export const layer: Layer.Layer<ApiKeyStore.ApiKeyStore, never, PostgresDatabase.PostgresDatabase> = Layer.scoped(
  ApiKeyStore.ApiKeyStore,
  make
)
