/**
 * `ApiKeyStore` on SQLite. A row holds a key's digest, never its secret; the
 * digest is unique, which makes inserting idempotent.
 *
 * @internal
 */
import { ApiKeyStore } from "@animal-store/core"
import { ApiKeyRow } from "@animal-store/sql-store"
import { Effect, Layer, Option } from "effect"
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
  (database) => ({
    insert: (key) =>
      database.write("Storing an API key", (connection) =>
        // A row with this digest exists afterwards: the insert stored it or conflicted with it.
        run(connection, insertSql, ...fromApiKey(key)).pipe(
          Effect.zipRight(values<ApiKeyRow.ApiKeyRow>(connection, findByDigestSql, key.digest)),
          Effect.map((rows) => toApiKey(rows[0]!))
        )),
    findByDigest: (digest) =>
      database.read("Reading an API key", (connection) => Effect.map(values<ApiKeyRow.ApiKeyRow>(connection, findByDigestSql, digest), first)),
    list: database.read("Listing API keys", (connection) => Effect.map(values<ApiKeyRow.ApiKeyRow>(connection, listSql), (rows) => rows.map(toApiKey))),
    revoke: (id, at) =>
      database.write("Revoking an API key", (connection) => Effect.map(values<ApiKeyRow.ApiKeyRow>(connection, revokeSql, at.getTime(), id), first))
  })
)

/** @internal */
export const layer: Layer.Layer<ApiKeyStore.ApiKeyStore, never, GroupCommit> = Layer.effect(ApiKeyStore.ApiKeyStore, make)
