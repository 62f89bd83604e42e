/**
 * For speed only: the `modify` calls of one turn counted in one write of the group commit (a read
 * of their rows, the rule in call order, one upsert) instead of a write each (`bench/ports.ts`).
 *
 * @internal
 */
import type { RateLimitStore, StoreError } from "@animal-store/core"
import { RateLimitRow } from "@animal-store/sql-store"
import type { SqlError } from "@effect/sql/SqlError"
import { Effect, Runtime } from "effect"
import type { Connection, GroupCommit } from "./groupCommit.js"

type State = RateLimitStore.RateLimitState

/** How the rows are read and written, each in one statement. */
export interface Rows {
  readonly read: (
    connection: Connection,
    subjects: ReadonlyArray<string>
  ) => Effect.Effect<ReadonlyArray<readonly [string, State]>, SqlError>
  readonly write: (connection: Connection, states: ReadonlyArray<readonly [string, State]>) => Effect.Effect<unknown, SqlError>
}

interface Call {
  readonly subject: string
  readonly f: (state: State | undefined) => readonly [unknown, State]
  readonly resume: (effect: Effect.Effect<unknown, StoreError.StoreError>) => void
}

/** Runs `calls` on `connection`: their exits, in order. */
const count = (connection: Connection, calls: ReadonlyArray<Call>, rows: Rows) =>
  Effect.flatMap(rows.read(connection, [...new Set(calls.map((call) => call.subject))]), (found) => {
    const { exits, states } = RateLimitRow.countInOrder(calls, new Map(found))
    const written = Array.from(states).filter((entry): entry is [string, State] => entry[1] !== undefined)
    return Effect.as(written.length === 0 ? Effect.void : rows.write(connection, written), exits)
  })

/** @internal */
export const make = (
  database: GroupCommit,
  rows: Rows,
  runtime: Runtime.Runtime<never>
): RateLimitStore.RateLimitStoreService["modify"] => {
  let pending: Array<Call> = []
  const runFork = Runtime.runFork(runtime)
  /** Sends the pending calls' write; it takes the calls pending when it runs. */
  const submit = () => {
    let calls: Array<Call> | undefined
    const take = () => {
      calls = pending
      pending = []
      return calls
    }
    runFork(
      database.write("Counting requests", (connection) => count(connection, take(), rows))
        .pipe(Effect.matchCause({
          // A write that failed before it ran still owns the pending calls.
          onFailure: (cause) => (calls ?? take()).forEach((call) => call.resume(Effect.failCause(cause))),
          onSuccess: (results) => calls!.forEach((call, i) => call.resume(results[i]!))
        }))
    )
  }
  return <A>(subject: string, f: (state: State | undefined) => readonly [A, State]) =>
    Effect.async<A, StoreError.StoreError>((resume) => {
      pending.push({ subject, f, resume: resume as Call["resume"] })
      if (pending.length === 1) submit()
    })
}
