/**
 * For speed only: hot statements run as named prepared statements on the store's own pool, parsed
 * and planned once per connection; `@effect/sql-pg` sends every statement unnamed (record 0058).
 *
 * @internal
 */
import { SqlRow } from "@animal-store/sql-store"
import * as SqlClient from "@effect/sql/SqlClient"
import { SqlError } from "@effect/sql/SqlError"
import { Context, Effect } from "effect"
import type Pg from "pg"
import type * as PostgresDatabase from "../PostgresDatabase.js"

/** The pools the store opened itself, by the client made on each. */
const ownPools = new WeakMap<SqlClient.SqlClient, Pg.Pool>()

/** Marks `pool` as the store's own pool under `client`: its statements may be prepared. @internal */
export const ownPool = (client: SqlClient.SqlClient, pool: Pg.Pool): void => {
  ownPools.set(client, pool)
}

/** One name per statement text: a connection refuses a name prepared with another text. */
const names = new Map<string, string>()
const nameOf = (text: string): string => {
  let name = names.get(text)
  if (name === undefined) {
    name = `animal_store_${names.size + 1}`
    names.set(text, name)
  }
  return name
}

/**
 * The rows of `text` (as arrays, checked by `isRow`) for parameters: a named prepared statement on
 * the store's own pool; on a host's client, or within a transaction (its connection), the client's statement.
 *
 * @internal
 */
export const values = <Row>(
  db: PostgresDatabase.PostgresDatabase,
  text: string,
  isRow: SqlRow.Guard<Row>
): (params: ReadonlyArray<unknown>) => Effect.Effect<ReadonlyArray<Row>, SqlError> => {
  const checked = (rows: ReadonlyArray<unknown>): Effect.Effect<ReadonlyArray<Row>, SqlError> =>
    rows.every(isRow) ? Effect.succeed(rows) : Effect.fail(SqlRow.unexpectedRow(text))
  const viaClient = (params: ReadonlyArray<unknown>) => SqlRow.values(db.sql.unsafe(text, params), isRow)
  const pool = ownPools.get(db.sql)
  if (pool === undefined) return viaClient
  const name = nameOf(text)
  const failed = (cause: unknown, message = "Failed to execute statement") => Effect.fail(new SqlError({ cause, message }))
  const prepared = (params: ReadonlyArray<unknown>) =>
    Effect.async<ReadonlyArray<Row>, SqlError>((resume) => {
      pool.connect((cause, client, release) => {
        if (cause || client === undefined) return resume(failed(cause, "Failed to acquire connection"))
        let done = false
        // A connection lost while checked out: gone from the pool (`pg-pool` ends it on `release(error)`).
        const onError = (error: Error) => {
          if (done) return
          done = true
          release(error)
          resume(failed(error))
        }
        client.once("error", onError)
        client.query<Array<unknown>>({ name, text, values: params as Array<unknown>, rowMode: "array" }, (error, result) => {
          client.removeListener("error", onError)
          if (done) return
          done = true
          // An error of the statement leaves the connection usable (as `@effect/sql-pg` keeps it).
          release()
          resume(error ? failed(error) : checked(result.rows))
        })
      })
    })
  return (params) =>
    Effect.withFiberRuntime((fiber) =>
      Context.getOption(fiber.currentContext, SqlClient.TransactionConnection)._tag === "Some"
        ? viaClient(params)
        : prepared(params)
    )
}
