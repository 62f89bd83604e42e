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
import { Effect, Layer } from "effect"
import type { Connection } from "./groupCommit.js"
import { GroupCommit, run, values } from "./groupCommit.js"
import * as FileGuard from "./fileGuard.js"
import * as CountingBatch from "./countingBatch.js"

type StateRow = readonly [
  minuteStart: number,
  minuteCount: number,
  dayStart: number,
  dayCount: number,
  refusedCount: number,
  bannedUntil: number
]

const toState = (row: StateRow | undefined): RateLimitStore.RateLimitState | undefined =>
  row === undefined ? undefined : {
    minuteStart: row[0],
    minuteCount: row[1],
    dayStart: row[2],
    dayCount: row[3],
    refusedCount: row[4],
    bannedUntil: row[5]
  }

const selectSql = `SELECT minute_start, minute_count, day_start, day_count, refused_count, banned_until
  FROM rate_limits WHERE subject = ?`
const selectManySql = `SELECT subject, minute_start, minute_count, day_start, day_count, refused_count, banned_until
  FROM rate_limits WHERE subject IN (SELECT value FROM json_each(?))`
const upsertManySql = `INSERT INTO rate_limits
    (subject, minute_start, minute_count, day_start, day_count, refused_count, banned_until)
  SELECT value ->> 0, value ->> 1, value ->> 2, value ->> 3, value ->> 4, value ->> 5, value ->> 6
  FROM json_each(?) WHERE true
  ON CONFLICT (subject) DO UPDATE SET minute_start = excluded.minute_start,
    minute_count = excluded.minute_count, day_start = excluded.day_start, day_count = excluded.day_count,
    refused_count = excluded.refused_count, banned_until = excluded.banned_until`
const upsertSql = `INSERT INTO rate_limits
    (subject, minute_start, minute_count, day_start, day_count, refused_count, banned_until)
  VALUES (?, ?, ?, ?, ?, ?, ?)
  ON CONFLICT (subject) DO UPDATE SET minute_start = excluded.minute_start,
    minute_count = excluded.minute_count, day_start = excluded.day_start, day_count = excluded.day_count,
    refused_count = excluded.refused_count, banned_until = excluded.banned_until`

/** @internal */
export const make: Effect.Effect<RateLimitStore.RateLimitStoreService, never, GroupCommit> = Effect.map(
  Effect.zip(GroupCommit, Effect.runtime<never>()),
  ([database, runtime]) => {
    const write = (connection: Connection, subject: string, next: RateLimitStore.RateLimitState) =>
      run(
        connection,
        upsertSql,
        subject,
        next.minuteStart,
        next.minuteCount,
        next.dayStart,
        next.dayCount,
        next.refusedCount,
        next.bannedUntil
      )
    const unwritten = new Map<string, RateLimitStore.RateLimitState>()
    const countUnwritten = <A>(
      subject: string,
      f: (state: RateLimitStore.RateLimitState | undefined) => readonly [A, RateLimitStore.RateLimitState]
    ) =>
      Effect.map(
        unwritten.has(subject)
          ? Effect.succeed(unwritten.get(subject))
          : database.read("Counting a request", (connection) =>
            Effect.map(values<StateRow>(connection, selectSql, subject), (rows) => toState(rows[0]))),
        (state) => {
          const [result, next] = f(state)
          if (unwritten.size >= 100_000) unwritten.clear()
          unwritten.set(subject, next)
          return result
        }
      )
    const counting = CountingBatch.make(database, {
      read: (connection, subjects) =>
        Effect.map(
          values<readonly [string, ...StateRow]>(connection, selectManySql, JSON.stringify(subjects)),
          (rows) => rows.map((row) => [row[0], toState(row.slice(1) as unknown as StateRow)!] as const)
        ),
      write: (connection, states) =>
        run(connection, upsertManySql, JSON.stringify(states.map(([subject, s]) => [
          subject,
          s.minuteStart,
          s.minuteCount,
          s.dayStart,
          s.dayCount,
          s.refusedCount,
          s.bannedUntil
        ])))
    }, runtime)
    return {
      modify: <A>(
        subject: string,
        f: (state: RateLimitStore.RateLimitState | undefined) => readonly [A, RateLimitStore.RateLimitState]
      ) =>
        Effect.flatMap(database.inTransaction, (inTransaction) =>
          inTransaction
            ? database.write("Counting a request", (connection) =>
              Effect.flatMap(values<StateRow>(connection, selectSql, subject), (rows) => {
                const [result, next] = f(toState(rows[0]))
                return Effect.as(write(connection, subject, next), result)
              }))
            : counting.modify(subject, f).pipe(
              Effect.tap(() => {
                if (unwritten.size > 0) unwritten.clear()
              }),
              Effect.catchIf((error) => FileGuard.isWriteFault(error), () => countUnwritten(subject, f))
            )),
      get: (subject) =>
        database.read("Reading a rate-limit state", (connection) =>
          Effect.map(values<StateRow>(connection, selectSql, subject), (rows) => toState(rows[0])))
    }
  }
)

/** @internal */
export const layer: Layer.Layer<RateLimitStore.RateLimitStore, never, GroupCommit> = Layer.effect(
  RateLimitStore.RateLimitStore,
  make
)
