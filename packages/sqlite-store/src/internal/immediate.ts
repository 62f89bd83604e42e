/**
 * A `BEGIN IMMEDIATE` transaction on a `SqlClient`: the write lock is taken
 * before the first read, so no other connection writes in between. It runs
 * without yielding to other fibers, which could not use the connection.
 *
 * @internal
 */
import * as SqlClient from "@effect/sql/SqlClient"
import type * as SqlConnection from "@effect/sql/SqlConnection"
import type { SqlError } from "@effect/sql/SqlError"
import { Effect, Exit } from "effect"

const execute = (connection: SqlConnection.Connection, statement: string) =>
  connection.executeRaw(statement, [])

/**
 * Runs `effect` in a `BEGIN IMMEDIATE` transaction of `sql`: committed when
 * it succeeds, rolled back when it fails. `sql` statements and transactions
 * inside it run in it.
 *
 * @internal
 */
export const immediate = <A, E, R>(
  sql: SqlClient.SqlClient,
  effect: Effect.Effect<A, E, R>
): Effect.Effect<A, E | SqlError, R> =>
  Effect.scoped(Effect.flatMap(sql.reserve, (connection) =>
    Effect.uninterruptibleMask((restore) =>
      Effect.gen(function*() {
        yield* execute(connection, "BEGIN IMMEDIATE")
        const exit = yield* Effect.exit(restore(Effect.provideService(effect, SqlClient.TransactionConnection, [connection, 0])))
        if (Exit.isFailure(exit)) {
          yield* Effect.ignore(execute(connection, "ROLLBACK"))
          return yield* exit
        }
        yield* Effect.tapError(execute(connection, "COMMIT"), () => Effect.ignore(execute(connection, "ROLLBACK")))
        return exit.value
      }).pipe(Effect.withMaxOpsBeforeYield(Number.MAX_SAFE_INTEGER))
    )))
