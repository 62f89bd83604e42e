/**
 * For speed only: a request's count was a write of its own in the turn's transaction (a statement
 * and an effect each); counted together, the turn's calls cost one write (`bench/ports.ts`, `modify`).
 *
 * The `modify` calls of one turn of the event loop, run as one write of the
 * group commit: the rows of the subjects not known (`knownStates.ts`) are
 * read in one statement, each call's rule runs on its subject's state in the
 * order the calls came, and the last state of each subject is written in one
 * statement. Each call is answered once that transaction has committed.
 *
 * @internal
 */
import type { RateLimitStore, StoreError } from "@animal-store/core"
import type { SqlError } from "@effect/sql/SqlError"
import { Effect, Exit, Runtime } from "effect"
import type { Connection, GroupCommit } from "./groupCommit.js"
import type { KnownStates } from "./knownStates.js"

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

/** @internal */
export interface CountingBatch {
  /** `RateLimitStore.modify`, outside any caller's transaction. */
  readonly modify: <A>(
    subject: string,
    f: (state: State | undefined) => readonly [A, State]
  ) => Effect.Effect<A, StoreError.StoreError>
}

/** Runs `calls` on `connection`: their results, in order. */
const count = (connection: Connection, calls: ReadonlyArray<Call>, known: KnownStates, rows: Rows) =>
  Effect.flatMap(known.check(connection), () => {
    const states = new Map<string, State | undefined>()
    const unknown: Array<string> = []
    for (const { subject } of calls) {
      if (states.has(subject)) continue
      const state = known.get(subject)
      states.set(subject, state)
      if (state === undefined) unknown.push(subject)
    }
    const read = unknown.length === 0 ? Effect.void : Effect.map(rows.read(connection, unknown), (found) => {
      for (const [subject, state] of found) states.set(subject, state)
    })
    return Effect.flatMap(read, () => {
      const results = calls.map(({ f, subject }): Exit.Exit<unknown> => {
        try {
          const [result, next] = f(states.get(subject))
          states.set(subject, next)
          return Exit.succeed(result)
        } catch (defect) {
          // A rule that throws is a defect of its call alone.
          return Exit.die(defect)
        }
      })
      const written = Array.from(states).filter((entry): entry is [string, State] => entry[1] !== undefined)
      return Effect.map(written.length === 0 ? Effect.void : rows.write(connection, written), () => {
        for (const [subject, state] of written) known.set(subject, state)
        return results
      })
    })
  })

/** @internal */
export const make = (
  database: GroupCommit,
  known: KnownStates,
  rows: Rows,
  runtime: Runtime.Runtime<never>
): CountingBatch => {
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
      database.write("Counting requests", (connection) => count(connection, take(), known, rows), { onEnd: known.end })
        .pipe(Effect.matchCause({
          // A write that failed before it ran still owns the pending calls.
          onFailure: (cause) => (calls ?? take()).forEach((call) => call.resume(Effect.failCause(cause))),
          onSuccess: (results) => calls!.forEach((call, i) => call.resume(results[i]!))
        }))
    )
  }
  return {
    modify: <A>(subject: string, f: (state: State | undefined) => readonly [A, State]) =>
      Effect.async<A, StoreError.StoreError>((resume) => {
        pending.push({ subject, f, resume: resume as Call["resume"] })
        if (pending.length === 1) submit()
      })
  }
}
