/**
 * `RateLimitStore` on SQLite: `modify` reads, runs the rule and writes a subject's row in one
 * `BEGIN IMMEDIATE` transaction; during a write fault of the files requests are counted in memory
 * (record 0033). Rows whose windows and ban have ended are deleted once a minute.
 *
 * @internal
 */
import type { StoreError } from "@animal-store/core"
import { RateLimitStore } from "@animal-store/core"
import { RateLimitRow } from "@animal-store/sql-store"
import type { Scope } from "effect"
import { Clock, Duration, Effect, Layer, Schedule } from "effect"
import type { Statements } from "./database.js"
import * as Database from "./database.js"
import * as FileGuard from "./fileGuard.js"

const { columns, countersOf, isRateLimitRow, toState } = RateLimitRow

type State = RateLimitStore.RateLimitState

const selectSql = `SELECT ${columns} FROM rate_limits WHERE subject = ?`
const upsertSql = `INSERT INTO rate_limits (${columns}) VALUES (${RateLimitRow.counterColumns.map(() => "?, ").join("")}?)
  ON CONFLICT (subject) DO UPDATE SET ${RateLimitRow.counterColumns.map((c) => `${c} = excluded.${c}`).join(", ")}`
// Parameters: now, three times (the driver binds no numbered `?1`). A minute's count is read until the end of
// the next minute (a sliding minute's previous one).
const deleteEndedSql = `DELETE FROM rate_limits WHERE day_start + 86400000 <= ? AND minute_start + 120000 <= ?
  AND banned_until <= ?`

/** How often rows of ended windows are deleted. */
export const purgeInterval = Duration.minutes(1)

const readOne = (statements: Statements, subject: string): State | undefined => {
  const row = statements.values(isRateLimitRow, selectSql, subject)[0]
  return row === undefined ? undefined : toState(row)
}

/**
 * Deletes the rows whose windows and ban have ended at `now`: how many.
 *
 * @internal
 */
export const deleteEnded = (database: Database.Database, now: number): Effect.Effect<number, StoreError.StoreError> =>
  database.write("Deleting ended rate-limit windows", (statements) => statements.run(deleteEndedSql, now, now, now).changes)

/** @internal */
export const make: Effect.Effect<RateLimitStore.RateLimitStoreService, never, Database.Database | Scope.Scope> = Effect.gen(
  function*() {
    const database = yield* Database.Database
    // Ended at the time the rule reads (the caller's `Clock`); looked for once a minute of real time.
    const clock = yield* Effect.clock
    yield* Effect.suspend(() => deleteEnded(database, clock.unsafeCurrentTimeMillis())).pipe(
      Effect.ignore,
      Effect.repeat(Schedule.spaced(purgeInterval)),
      Effect.withClock(Clock.make()),
      Effect.forkScoped
    )
    const unwritten = new Map<string, State>()
    const countUnwritten = <A>(subject: string, f: (state: State | undefined) => readonly [A, State]) =>
      Effect.map(
        unwritten.has(subject)
          ? Effect.succeed(unwritten.get(subject))
          : database.read("Counting a request", (statements) => readOne(statements, subject)),
        (state) => {
          const [result, next] = f(state)
          if (unwritten.size >= 100_000) unwritten.clear()
          unwritten.set(subject, next)
          return result
        }
      )
    /** A subject's row: for held counts, read once a turn and written once before its commit (record 0071). */
    const rowOf = (subject: string): Database.HeldRow<State | undefined> => ({
      key: `rate_limits:${subject}`,
      read: (statements) => readOne(statements, subject),
      write: (statements, state) => {
        if (state !== undefined) statements.run(upsertSql, subject, ...countersOf(state))
      }
    })
    return {
      modify: <A>(subject: string, f: (state: State | undefined) => readonly [A, State]) =>
        database.modifyHeld("Counting a request", rowOf(subject), f).pipe(
          Effect.tap(() => {
            if (unwritten.size > 0) unwritten.clear()
          }),
          Effect.catchIf((error) => FileGuard.isWriteFault(error), () => countUnwritten(subject, f))
        ),
      get: (subject) => database.readSettled("Reading a rate-limit state", (statements) => readOne(statements, subject))
    }
  }
)

/** @internal */
export const layer: Layer.Layer<RateLimitStore.RateLimitStore, never, Database.Database> = Layer.scoped(
  RateLimitStore.RateLimitStore,
  make
)
