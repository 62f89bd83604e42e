/**
 * For speed only: the calls waiting together share one read and one write, and hold no row lock
 * between them (the rate-limit step was two round trips holding a row lock between them; record 0037).
 *
 * @internal
 */
import type { RateLimitStore, StoreError } from "@animal-store/core"
import { RateLimitRow, SqlRow } from "@animal-store/sql-store"
import type { SqlError } from "@effect/sql/SqlError"
import { Cause, Effect, Option, Runtime } from "effect"
import * as Prepared from "./prepared.js"
import type { RateLimitRows } from "./rateLimitRows.js"
import { stateOf, valuesOf } from "./rateLimitRows.js"
import { mapStoreError } from "./storeError.js"
import type * as PostgresDatabase from "../PostgresDatabase.js"

type State = RateLimitStore.RateLimitState

interface Call {
  readonly subject: string
  readonly f: (state: State | undefined) => readonly [unknown, State]
  readonly resume: (exit: Effect.Effect<unknown, StoreError.StoreError>) => void
}

/** Errors after which the statement surely changed nothing: its calls run again. */
const isRetryable = (error: SqlError): boolean => {
  const code = (error.cause as { readonly code?: unknown } | undefined)?.code
  return code === "40P01" || code === "40001"
}

/**
 * The batch reads its subjects' rows; each call's rule runs on its subject's row in call order; one
 * upsert writes each subject's new row only where the row still holds what was read (a compare-and-set).
 * A subject another process changed in between is written nowhere: its calls run again in the next batch.
 *
 * @internal
 */
export const make = (
  db: PostgresDatabase.PostgresDatabase,
  rows: RateLimitRows
): Effect.Effect<RateLimitStore.RateLimitStoreService["modify"]> =>
  Effect.map(Effect.runtime<never>(), (runtime) => {
    const names = RateLimitRow.counterColumns
    const kept = names.map((n) => `k_${n}`)
    // $1 the subjects, then the counters read, then the new ones.
    const writeSql = `WITH i AS (
        SELECT * FROM unnest($1::text[], ${names.map((_, c) => `$${c + 2}::bigint[], $${c + 2 + names.length}::bigint[]`).join(", ")})
          AS i(subject, ${names.map((n, c) => `${kept[c]}, ${n}`).join(", ")})
      )
      INSERT INTO ${db.table("rate_limits")} AS r (subject, ${names.join(", ")})
      SELECT subject, ${names.join(", ")} FROM i
      ON CONFLICT (subject) DO UPDATE SET ${names.map((n) => `${n} = EXCLUDED.${n}`).join(", ")}
      WHERE EXISTS (SELECT FROM i WHERE i.subject = r.subject AND ${
      names.map((n, c) => `r.${n} IS NOT DISTINCT FROM i.${kept[c]}`).join(" AND ")
    })
      RETURNING r.subject`
    const write = Prepared.values(db, writeSql, SqlRow.tuple(SqlRow.isString))
    let queue: Array<Call> = []
    let running = false

    const runBatch = (batch: ReadonlyArray<Call>): Effect.Effect<void> => {
      const subjects = [...new Set(batch.map((call) => call.subject))].sort()
      return rows.read(subjects).pipe(
        Effect.flatMap((found) => {
          const states = new Map<string, State | undefined>(found.map((row) => [row[0], stateOf(row)]))
          const counted = RateLimitRow.countInOrder(batch, states)
          const columns: Array<Array<unknown>> = [subjects, ...names.flatMap(() => [[], []])]
          for (const subject of subjects) {
            const [before, after] = [valuesOf(states.get(subject)), valuesOf(counted.states.get(subject))]
            for (let c = 0; c < names.length; c++) {
              columns[1 + c]!.push(before[c])
              columns[1 + names.length + c]!.push(after[c])
            }
          }
          return Effect.map(write(columns), (returned) => ({ counted, written: new Set(returned.map((row) => row[0])) }))
        }),
        Effect.map(({ counted, written }) => {
          const again: Array<Call> = []
          batch.forEach((call, i) => {
            if (written.has(call.subject)) call.resume(counted.exits[i]!)
            else again.push(call)
          })
          if (again.length > 0) queue = [...again, ...queue]
        }),
        Effect.catchAllCause((cause) =>
          Effect.sync(() => {
            if (Option.exists(Cause.failureOption(cause), isRetryable)) queue = [...batch, ...queue]
            else batch.forEach((call) => call.resume(mapStoreError("Counting a request")(Effect.failCause(cause))))
          })
        )
      )
    }

    const drain: Effect.Effect<void> = Effect.suspend(() => {
      if (queue.length === 0) {
        running = false
        return Effect.void
      }
      const batch = queue
      queue = []
      return Effect.zipRight(runBatch(batch), drain)
    })

    return <A>(subject: string, f: (state: State | undefined) => readonly [A, State]) =>
      Effect.async<A, StoreError.StoreError>((resume) => {
        queue.push({ subject, f, resume: resume as Call["resume"] })
        if (!running) {
          running = true
          Runtime.runFork(runtime)(drain)
        }
      })
  })
