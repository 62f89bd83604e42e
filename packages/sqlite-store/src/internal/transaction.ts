import * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import { Effect, Scope } from "effect"

// When `BEGIN IMMEDIATE` itself fails (busy), there is nothing to roll back:
// keep the error of `BEGIN` rather than the one of `ROLLBACK`.
const isNoTransaction = (error: SqlError) =>
  /no transaction is active/.test(String((error.cause as Error | undefined)?.message))

/**
 * `sql.withTransaction` that starts with `BEGIN IMMEDIATE`: the write lock is
 * taken before the first read, so no other connection (in this process or
 * another one on the same file) can write between what the transaction reads
 * and what it writes. A busy lock is waited for up to the busy timeout.
 *
 * @internal
 */
export const makeWithImmediateTransaction = Effect.map(
  SqlClient.SqlClient,
  (sql) =>
    SqlClient.makeWithTransaction({
      transactionTag: SqlClient.TransactionConnection,
      spanAttributes: [["db.system.name", "sqlite"]],
      acquireConnection: Effect.flatMap(
        Scope.make(),
        (scope) => Effect.map(Scope.extend(sql.reserve, scope), (conn) => [scope, conn] as const)
      ),
      begin: (conn) => conn.executeUnprepared("BEGIN IMMEDIATE", [], undefined),
      savepoint: (conn, id) => conn.executeUnprepared(`SAVEPOINT effect_sql_${id}`, [], undefined),
      commit: (conn) => conn.executeUnprepared("COMMIT", [], undefined),
      rollback: (conn) =>
        Effect.catchIf(conn.executeUnprepared("ROLLBACK", [], undefined), isNoTransaction, () => Effect.void),
      rollbackSavepoint: (conn, id) => conn.executeUnprepared(`ROLLBACK TO SAVEPOINT effect_sql_${id}`, [], undefined)
    })
)
