/**
 * `RateLimitStore` on SQLite. `modify` reads a subject's row, runs the rule
 * and writes the new row inside a `BEGIN IMMEDIATE` transaction: the write
 * lock is held from the read on, so processes sharing the database file count
 * every request exactly once and never accept more than the limit together.
 *
 * Group commit (`SqliteDatabase.batched`): the calls of one turn of the
 * event loop are counted in one transaction, with the store's other writes of
 * that turn, in the order they came (two calls for one subject: the second
 * counts on what the first counted), and each call's answer is given once the
 * transaction has committed (under `Durability.deferCommit`, as the HTTP
 * adapter runs a request, the request's response waits for it instead). One
 * commit then serves every request the server read in that turn instead of
 * one each (measured by `pnpm bench`, which runs the server as shipped). A
 * subject's row is read by its first call of the turn and written once, just
 * before the commit (`Connection.atTurnEnd`): the transaction holds the write
 * lock from its first write on, so no other process counts in between. A
 * call inside a host's `SqlClient` transaction runs in that transaction and
 * writes its row at once.
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
 * The states counted in the open turn of each database, by subject: written
 * once each, just before the turn commits. One per database, shared by every
 * store made on it, so that two of them counting one subject in one turn
 * count on each other.
 */
const countedByDatabase = new WeakMap<SqliteDatabase.SqliteDatabase, Map<string, RateLimitStore.RateLimitState>>()

const countedOf = (database: SqliteDatabase.SqliteDatabase): Map<string, RateLimitStore.RateLimitState> => {
  let counted = countedByDatabase.get(database)
  if (counted === undefined) {
    counted = new Map()
    countedByDatabase.set(database, counted)
  }
  return counted
}

/**
 * @since 1.0.0
 * @category constructors
 */
export const make: Effect.Effect<RateLimitStore.RateLimitStoreService, never, SqliteDatabase.SqliteDatabase> = Effect
  .gen(function*() {
    const database = yield* SqliteDatabase.SqliteDatabase
    const counted = countedOf(database)
    const write = (connection: SqliteDatabase.Connection, subject: string, state: RateLimitStore.RateLimitState) =>
      connection.run(
        upsertSql,
        subject,
        state.minuteStart,
        state.minuteCount,
        state.dayStart,
        state.dayCount,
        state.refusedCount,
        state.bannedUntil
      )
    const writeCounted = (connection: SqliteDatabase.Connection) => () => {
      for (const [subject, state] of counted) write(connection, subject, state)
      counted.clear()
    }
    const discardCounted = () => counted.clear()
    const count = <A>(
      connection: SqliteDatabase.Connection,
      subject: string,
      f: (state: RateLimitStore.RateLimitState | undefined) => readonly [A, RateLimitStore.RateLimitState]
    ): A => {
      const [result, next] = f(counted.get(subject) ?? toState(connection.firstValues<StateRow>(selectSql, subject)))
      if (counted.size > 0 || connection.atTurnEnd("Counting requests", writeCounted(connection), discardCounted)) {
        counted.set(subject, next)
      } else {
        write(connection, subject, next)
      }
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
