/**
 * `RateLimitStore` on SQLite. `modify` reads a subject's row, runs the rule
 * and writes the new row in the writer's `BEGIN IMMEDIATE` transaction: the
 * write lock is held from the read on, so processes sharing the file count
 * every request exactly once, and two calls of one transaction count in the
 * order they came. The calls of one turn are counted together, in one read
 * of their rows and one write (`countingBatch.ts`). While writes fail with
 * a fault of the files (`fileGuard.ts`), requests are counted in memory from
 * the stored state, so reads keep working; those counts are dropped once a
 * write works again.
 * `get` reads the row, outside any transaction.
 *
 * @internal
 */
import { RateLimitStore } from "@animal-store/core"
import { RateLimitRow } from "@animal-store/sql-store"
import { Effect, Layer } from "effect"
import type { Connection } from "./groupCommit.js"
import { GroupCommit, run, values } from "./groupCommit.js"
import * as FileGuard from "./fileGuard.js"
import * as CountingBatch from "./countingBatch.js"

const { columns, countersOf, toState } = RateLimitRow

// The rows of a JSON array of subjects.
const selectSql = `SELECT ${columns} FROM rate_limits WHERE subject IN (SELECT value FROM json_each(?))`
// The rows of a JSON array of them.
const upsertSql = `INSERT INTO rate_limits (${columns})
  SELECT ${columns.split(", ").map((_, i) => `value ->> ${i}`).join(", ")}
  FROM json_each(?) WHERE true
  ON CONFLICT (subject) DO UPDATE SET ${RateLimitRow.counterColumns.map((c) => `${c} = excluded.${c}`).join(", ")}`

/** @internal */
export const make: Effect.Effect<RateLimitStore.RateLimitStoreService, never, GroupCommit> = Effect.map(
  Effect.zip(GroupCommit, Effect.runtime<never>()),
  ([database, runtime]) => {
    const write = (connection: Connection, states: ReadonlyArray<readonly [string, RateLimitStore.RateLimitState]>) =>
      run(connection, upsertSql, JSON.stringify(states.map(([subject, state]) => [subject, ...countersOf(state)])))
    const read = (connection: Connection, subjects: ReadonlyArray<string>) =>
      Effect.map(
        values<RateLimitRow.RateLimitRow>(connection, selectSql, JSON.stringify(subjects)),
        (rows) => rows.map((row) => [row[0], toState(row)] as const)
      )
    const readOne = (connection: Connection, subject: string) => Effect.map(read(connection, [subject]), (rows) => rows[0]?.[1])
    const unwritten = new Map<string, RateLimitStore.RateLimitState>()
    const countUnwritten = <A>(
      subject: string,
      f: (state: RateLimitStore.RateLimitState | undefined) => readonly [A, RateLimitStore.RateLimitState]
    ) =>
      Effect.map(
        unwritten.has(subject)
          ? Effect.succeed(unwritten.get(subject))
          : database.read("Counting a request", (connection) => readOne(connection, subject)),
        (state) => {
          const [result, next] = f(state)
          if (unwritten.size >= 100_000) unwritten.clear()
          unwritten.set(subject, next)
          return result
        }
      )
    const countInBatch = CountingBatch.make(database, { read, write }, runtime)
    return {
      modify: <A>(
        subject: string,
        f: (state: RateLimitStore.RateLimitState | undefined) => readonly [A, RateLimitStore.RateLimitState]
      ) =>
        Effect.flatMap(database.inTransaction, (inTransaction) =>
          inTransaction
            ? database.write("Counting a request", (connection) =>
              Effect.flatMap(readOne(connection, subject), (state) => {
                const [result, next] = f(state)
                return Effect.as(write(connection, [[subject, next]]), result)
              }))
            : countInBatch(subject, f).pipe(
              Effect.tap(() => {
                if (unwritten.size > 0) unwritten.clear()
              }),
              Effect.catchIf((error) => FileGuard.isWriteFault(error), () => countUnwritten(subject, f))
            )),
      get: (subject) =>
        database.read("Reading a rate-limit state", (connection) => readOne(connection, subject))
    }
  }
)

/** @internal */
export const layer: Layer.Layer<RateLimitStore.RateLimitStore, never, GroupCommit> = Layer.effect(
  RateLimitStore.RateLimitStore,
  make
)
