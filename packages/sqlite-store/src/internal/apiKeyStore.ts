/**
 * `ApiKeyStore` on SQLite. A row holds a key's digest, never its secret; the
 * digest is unique, which makes inserting idempotent. Keys found by digest
 * are kept in memory while no other connection commits (`foundKeys.ts`);
 * inside a caller's transaction the row is read.
 *
 * @internal
 */
import { ApiKeyStore } from "@animal-store/core"
import { ApiKeyRow, SqlRow } from "@animal-store/sql-store"
import { Effect, Layer, Option } from "effect"
import type { Statements } from "./database.js"
import { Database } from "./database.js"
import * as FoundKeys from "./foundKeys.js"

const { columns, fromApiKey, isApiKeyRow, toApiKey } = ApiKeyRow
const isDigests = SqlRow.tuple(SqlRow.isString, SqlRow.isNullOr(SqlRow.isString))

// A digest stored as a key's previous one is not inserted again: it finds that key.
const insertSql = `INSERT INTO api_keys (${columns})
  SELECT ${columns.split(", ").map(() => "?").join(", ")}
  WHERE NOT EXISTS (SELECT 1 FROM api_keys WHERE previous_digest = ?)
  ON CONFLICT (digest) DO NOTHING`
const findByDigestSql = `SELECT ${columns} FROM api_keys WHERE digest = ?
  UNION ALL SELECT ${columns} FROM api_keys WHERE previous_digest = ?`
const listSql = `SELECT ${columns} FROM api_keys ORDER BY created_at, rowid`
const revokeSql = `UPDATE api_keys SET revoked_at = coalesce(revoked_at, ?) WHERE id = ? RETURNING ${columns}`
const rotateSql = `UPDATE api_keys SET previous_digest = digest, previous_prefix = prefix, previous_until = ?,
  digest = ?, prefix = ? WHERE id = ? RETURNING ${columns}`
const digestsSql = "SELECT digest, previous_digest FROM api_keys WHERE id = ?"

const rowOf = (statements: Statements, digest: string) => statements.values(isApiKeyRow, findByDigestSql, digest, digest)[0]

/** @internal */
export const make: Effect.Effect<ApiKeyStore.ApiKeyStoreService, never, Database> = Effect.map(
  Database,
  (database) => {
    const found = FoundKeys.make()
    const readRow = (digest: string) =>
      database.read("Reading an API key", (statements) => {
        const row = rowOf(statements, digest)
        return row === undefined ? Option.none() : Option.some(toApiKey(row))
      })
    const findKept = (digest: string) =>
      database.readBeforeWrites("Reading an API key", (statements) => {
        const kept = found.get(statements, digest)
        if (kept !== undefined) return kept
        const generation = found.generation()
        const row = rowOf(statements, digest)
        return row === undefined ? Option.none() : found.keep(digest, toApiKey(row), generation)
      })
    return {
      insert: (key) =>
        database.write("Storing an API key", (statements) => {
          // A row with this digest exists afterwards: the insert stored it or conflicted with it.
          statements.run(insertSql, ...fromApiKey(key), key.digest)
          return toApiKey(rowOf(statements, key.digest)!)
        }),
      // Inside a transaction, `data_version` is that of its start: the row is read.
      findByDigest: (digest) =>
        Effect.flatMap(database.inTransaction, (inTransaction) => inTransaction ? readRow(digest) : findKept(digest)),
      list: database.read("Listing API keys", (statements) => statements.values(isApiKeyRow, listSql).map(toApiKey)),
      revoke: (id, at) =>
        database.write("Revoking an API key", (statements) => {
          const row = statements.values(isApiKeyRow, revokeSql, at.getTime(), id)[0]
          if (row === undefined) return Option.none()
          const key = toApiKey(row)
          found.forget(key.digest)
          if (Option.isSome(key.previousSecret)) found.forget(key.previousSecret.value.digest)
          return Option.some(key)
        }),
      rotate: (id, next, until) =>
        database.write("Rotating an API key", (statements) => {
          for (const digests of statements.values(isDigests, digestsSql, id)) {
            for (const digest of digests) if (digest !== null) found.forget(digest)
          }
          const row = statements.values(isApiKeyRow, rotateSql, until.getTime(), next.digest, next.prefix, id)[0]
          return row === undefined ? Option.none() : Option.some(toApiKey(row))
        })
    }
  }
)

/** @internal */
export const layer: Layer.Layer<ApiKeyStore.ApiKeyStore, never, Database> = Layer.effect(ApiKeyStore.ApiKeyStore, make)
