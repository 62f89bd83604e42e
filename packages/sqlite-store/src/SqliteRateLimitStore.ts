/**
 * `RateLimitStore` on SQLite. `modify` reads a subject's row, runs the rule
 * and writes the new row inside a `BEGIN IMMEDIATE` transaction: the write
 * lock is held from the read on, so processes sharing the database file count
 * every request exactly once and never accept more than the limit together.
 *
 * Group commit (`SqliteDatabase.batched`): the calls of one turn of the
 * event loop are counted in one transaction, with the store's other writes of
 * that turn, in the order they came (two calls for one subject: the second
 * reads what the first wrote), and each call's answer is given once the
 * transaction has committed (under `Durability.deferCommit`, as the HTTP
 * adapter runs a request, the request's response waits for it instead). One
 * commit then serves every request the server read in that turn instead of
 * one each (measured by `pnpm bench`, which runs the server as shipped). A
 * call inside a host's `SqlClient` transaction runs in that transaction.
 *
 * @since 1.0.0
 */
import { RateLimitStore } from "@animal-store/core"
import { Effect, Layer } from "effect"
import * as SqliteDatabase from "./SqliteDatabase.js"

type StateRow = readonly [
  minuteStart: number,
  minuteCount: number,
  dayStart: number,
  dayCount: number,
  refusedCount: number,
  bannedUntil: number
]

// Read as an array of column values (cheaper than an object).
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
const upsertSql = `INSERT INTO rate_limits
    (subject, minute_start, minute_count, day_start, day_count, refused_count, banned_until)
  VALUES (?, ?, ?, ?, ?, ?, ?)
  ON CONFLICT (subject) DO UPDATE SET minute_start = excluded.minute_start,
    minute_count = excluded.minute_count, day_start = excluded.day_start, day_count = excluded.day_count,
    refused_count = excluded.refused_count, banned_until = excluded.banned_until`

/**
 * @since 1.0.0
 * @category constructors
 */
export const make: Effect.Effect<RateLimitStore.RateLimitStoreService, never, SqliteDatabase.SqliteDatabase> = Effect
  .gen(function*() {
    const database = yield* SqliteDatabase.SqliteDatabase
    const count = <A>(
      connection: SqliteDatabase.Connection,
      subject: string,
      f: (state: RateLimitStore.RateLimitState | undefined) => readonly [A, RateLimitStore.RateLimitState]
    ): A => {
      const [result, next] = f(toState(connection.firstValues<StateRow>(selectSql, subject)))
      connection.run(
        upsertSql,
        subject,
        next.minuteStart,
        next.minuteCount,
        next.dayStart,
        next.dayCount,
        next.refusedCount,
        next.bannedUntil
      )
      return result
    }
    return {
      modify: <A>(
        subject: string,
        f: (state: RateLimitStore.RateLimitState | undefined) => readonly [A, RateLimitStore.RateLimitState]
      ) => database.batched("Counting a request", (connection) => count(connection, subject, f))
    }
  })

/**
 * @since 1.0.0
 * @category layers
 */
export const layer: Layer.Layer<RateLimitStore.RateLimitStore, never, SqliteDatabase.SqliteDatabase> = Layer.effect(
  RateLimitStore.RateLimitStore,
  make
)
