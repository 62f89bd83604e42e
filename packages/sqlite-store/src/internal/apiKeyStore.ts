/**
 * `ApiKeyStore` on SQLite. A row holds a key's digest, never its secret; the
 * digest is unique, which makes inserting idempotent. Keys found by digest
 * are kept in memory while no other connection commits (`foundKeys.ts`);
 * inside a caller's transaction the row is read.
 *
 * @internal
 */
import type { ApiKey } from "@animal-store/core"
import { ApiKeyStore } from "@animal-store/core"
import { ApiKeyRow } from "@animal-store/sql-store"
import { Effect, Layer, Option } from "effect"
import * as FoundKeys from "./foundKeys.js"
import { GroupCommit, run, values } from "./groupCommit.js"

const { columns, fromApiKey, toApiKey } = ApiKeyRow

const insertSql = `INSERT INTO api_keys (${columns})
  VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
  ON CONFLICT (digest) DO NOTHING`
const findByDigestSql = `SELECT ${columns} FROM api_keys WHERE digest = ?`
const listSql = `SELECT ${columns} FROM api_keys ORDER BY created_at, rowid`
const revokeSql = `UPDATE api_keys SET revoked_at = coalesce(revoked_at, ?) WHERE id = ? RETURNING ${columns}`

const first = (rows: ReadonlyArray<ApiKeyRow.ApiKeyRow>) => Option.map(Option.fromNullable(rows[0]), toApiKey)

/** @internal */
export const make: Effect.Effect<ApiKeyStore.ApiKeyStoreService, never, GroupCommit> = Effect.map(
  GroupCommit,
  (database) => {
    const found = FoundKeys.make()
    const readRow = (digest: string, keep: (key: ApiKey.ApiKey) => Option.Option<ApiKey.ApiKey>) =>
      database.read("Reading an API key", (connection) =>
        Effect.map(values<ApiKeyRow.ApiKeyRow>(connection, findByDigestSql, digest), (rows) =>
          rows[0] === undefined ? Option.none() : keep(toApiKey(rows[0]))))
    const findKept = (digest: string) =>
      database.read("Reading an API key", (connection) =>
        Effect.flatMap(found.get(connection, digest), (kept) => {
          if (kept !== undefined) return Effect.succeed(kept)
          const generation = found.generation()
          return Effect.map(values<ApiKeyRow.ApiKeyRow>(connection, findByDigestSql, digest), (rows) =>
            rows[0] === undefined ? Option.none() : found.keep(toApiKey(rows[0]), generation))
        }))
    return {
      insert: (key) =>
        database.write("Storing an API key", (connection) =>
          // A row with this digest exists afterwards: the insert stored it or conflicted with it.
          run(connection, insertSql, ...fromApiKey(key)).pipe(
            Effect.zipRight(values<ApiKeyRow.ApiKeyRow>(connection, findByDigestSql, key.digest)),
            Effect.map((rows) => toApiKey(rows[0]!))
          )),
      // Inside a transaction, `data_version` is that of its start: the row is read.
      findByDigest: (digest) =>
        Effect.flatMap(database.inTransaction, (inTransaction) => inTransaction ? readRow(digest, Option.some) : findKept(digest)),
      list: database.read("Listing API keys", (connection) => Effect.map(values<ApiKeyRow.ApiKeyRow>(connection, listSql), (rows) => rows.map(toApiKey))),
      revoke: (id, at) =>
        database.write("Revoking an API key", (connection) =>
          Effect.map(values<ApiKeyRow.ApiKeyRow>(connection, revokeSql, at.getTime(), id), (rows) => {
            const key = first(rows)
            if (Option.isSome(key)) found.forget(key.value.digest)
            return key
          }))
    }
  }
)

/** @internal */
export const layer: Layer.Layer<ApiKeyStore.ApiKeyStore, never, GroupCommit> = Layer.effect(ApiKeyStore.ApiKeyStore, make)
