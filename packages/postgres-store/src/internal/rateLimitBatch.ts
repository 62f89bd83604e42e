/**
 * For speed only: the calls waiting together share one statement, and a known row saves its read
 * (the rate-limit step was two round trips holding a row lock between them; record 0037).
 *
 * Each call's rule runs on the kept row in call order; one statement writes each subject's new row
 * where the row still holds the kept one (compare-and-set, or an insert). A subject changed by
 * another process is written nowhere: its calls run again next batch on the row as read then.
 *
 * @internal
 */
import type { RateLimitStore, StoreError } from "@animal-store/core"
import type { SqlError } from "@effect/sql/SqlError"
import { Effect, Runtime } from "effect"
import { mapStoreError } from "./storeError.js"
import type { RateLimitRows } from "./rateLimitRows.js"
import { names, stateOf, valuesOf } from "./rateLimitRows.js"
import type * as PostgresDatabase from "../PostgresDatabase.js"

type State = RateLimitStore.RateLimitState

/** A row as kept: absent, present without a state yet (NULL counters), or its state. */
type Kept = { readonly _tag: "Absent" } | { readonly _tag: "Row"; readonly state: State | undefined }

interface Call {
  readonly subject: string
  readonly f: (state: State | undefined) => readonly [unknown, State]
  readonly resume: (exit: Effect.Effect<unknown, StoreError.StoreError>) => void
}

/** The most rows kept at once; going over forgets them all. */
const maxKept = 100_000

/** Errors after which the statement surely changed nothing: its calls run again. */
const isRetryable = (error: SqlError): boolean => {
  const code = (error.cause as { readonly code?: unknown } | undefined)?.code
  return code === "40P01" || code === "40001"
}

/** @internal */
export const make = (
  db: PostgresDatabase.PostgresDatabase,
  rows: RateLimitRows
): Effect.Effect<RateLimitStore.RateLimitStoreService["modify"]> =>
  Effect.map(Effect.runtime<never>(), (runtime) => {
    const limits = db.table("rate_limits")
    // $1 subjects, $2 whether each row exists, $3..$8 the kept counters, $9..$14 the new ones.
    const input = names.map((_, i) => `$${i + 3}::bigint[]`).concat(names.map((_, i) => `$${i + 9}::bigint[]`))
    const writeSql = `WITH i AS (
        SELECT * FROM unnest($1::text[], $2::bool[], ${input.join(", ")})
          AS i(subject, existed, ${names.map((n) => `k_${n}`).join(", ")}, ${names.join(", ")})
      ), updated AS (
        UPDATE ${limits} AS r SET ${names.map((n) => `${n} = i.${n}`).join(", ")}
        FROM i WHERE i.existed AND r.subject = i.subject
          AND ${names.map((n) => `r.${n} IS NOT DISTINCT FROM i.k_${n}`).join(" AND ")}
        RETURNING r.subject
      ), inserted AS (
        INSERT INTO ${limits} (subject, ${names.join(", ")})
        SELECT subject, ${names.join(", ")} FROM i WHERE NOT i.existed
        ON CONFLICT (subject) DO NOTHING RETURNING subject
      )
      SELECT subject FROM updated UNION ALL SELECT subject FROM inserted`

    const kept = new Map<string, Kept>()
    let queue: Array<Call> = []
    let running = false

    const read = (subjects: ReadonlyArray<string>): Effect.Effect<void, SqlError> =>
      subjects.length === 0 ? Effect.void : Effect.map(rows.read(subjects), (found) => {
        if (kept.size + subjects.length > maxKept) kept.clear()
        for (const subject of subjects) kept.set(subject, { _tag: "Absent" })
        for (const row of found) kept.set(row[0], { _tag: "Row", state: stateOf(row) })
      })

    const runBatch = (batch: ReadonlyArray<Call>): Effect.Effect<void> => {
      const bySubject = new Map<string, Array<Call>>()
      for (const call of batch) {
        const calls = bySubject.get(call.subject)
        if (calls === undefined) bySubject.set(call.subject, [call])
        else calls.push(call)
      }
      const subjects = [...bySubject.keys()].sort()
      return read(subjects.filter((subject) => !kept.has(subject))).pipe(
        Effect.flatMap(() => {
          const results = new Map<string, { readonly next: State; readonly results: Array<unknown> }>()
          const columns: Array<Array<unknown>> = Array.from({ length: 14 }, () => [])
          for (const subject of subjects) {
            const row = kept.get(subject)!
            let state = row._tag === "Row" ? row.state : undefined
            const outcomes: Array<unknown> = []
            for (const call of bySubject.get(subject)!) {
              const [result, next] = call.f(state)
              outcomes.push(result)
              state = next
            }
            results.set(subject, { next: state!, results: outcomes })
            const before = valuesOf(row._tag === "Row" ? row.state : undefined)
            const after = valuesOf(state)
            columns[0]!.push(subject)
            columns[1]!.push(row._tag === "Row")
            for (let c = 0; c < 6; c++) {
              columns[2 + c]!.push(before[c])
              columns[8 + c]!.push(after[c])
            }
          }
          return Effect.map(
            db.sql.unsafe(writeSql, columns).values as unknown as Effect.Effect<ReadonlyArray<readonly [string]>, SqlError>,
            (returned) => {
              const written = new Set(returned.map((row) => row[0]))
              const again: Array<Call> = []
              for (const subject of subjects) {
                if (written.has(subject)) {
                  const { next, results: outcomes } = results.get(subject)!
                  kept.set(subject, { _tag: "Row", state: next })
                  bySubject.get(subject)!.forEach((call, i) => call.resume(Effect.succeed(outcomes[i])))
                } else {
                  kept.delete(subject)
                  again.push(...bySubject.get(subject)!)
                }
              }
              if (again.length > 0) queue = [...again, ...queue]
            }
          )
        }),
        Effect.catchAll((error) => {
          for (const subject of subjects) kept.delete(subject)
          if (isRetryable(error)) {
            queue = [...batch, ...queue]
            return Effect.void
          }
          const failure = Effect.fail(error).pipe(mapStoreError("Counting a request"))
          for (const call of batch) call.resume(failure)
          return Effect.void
        }),
        Effect.catchAllDefect((defect) =>
          Effect.sync(() => {
            for (const subject of subjects) kept.delete(subject)
            for (const call of batch) call.resume(Effect.die(defect))
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
