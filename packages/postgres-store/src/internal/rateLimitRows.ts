/**
 * The `rate_limits` table's rows as core's `RateLimitState`: its six counter columns, NULL until a
 * rule first writes them, read by subject.
 *
 * @internal
 */
import type { RateLimitStore } from "@animal-store/core"
import type { SqlError } from "@effect/sql/SqlError"
import { Effect } from "effect"
import type * as PostgresDatabase from "../PostgresDatabase.js"
import { mapStoreError } from "./storeError.js"

type State = RateLimitStore.RateLimitState

/** A row: its subject, then its counters (`bigint`s, as `pg` gives them: strings). */
export type Row = readonly [subject: string, ...counters: ReadonlyArray<string | null>]

/** The counter columns, in the order of a row. */
export const names = ["minute_start", "minute_count", "day_start", "day_count", "refused_count", "banned_until"] as const

/** The state a row holds; `undefined` while its counters are NULL. */
export const stateOf = (row: Row): State | undefined =>
  row[1] === null ? undefined : {
    minuteStart: Number(row[1]),
    minuteCount: Number(row[2]),
    dayStart: Number(row[3]),
    dayCount: Number(row[4]),
    refusedCount: Number(row[5]),
    bannedUntil: Number(row[6])
  }

/** The counter columns' values of `state`, in the order of `names`. */
export const valuesOf = (state: State | undefined): ReadonlyArray<number | null> => {
  if (state === undefined) return [null, null, null, null, null, null]
  const values = [
    state.minuteStart,
    state.minuteCount,
    state.dayStart,
    state.dayCount,
    state.refusedCount,
    state.bannedUntil
  ]
  for (const value of values) {
    if (!Number.isSafeInteger(value)) throw new Error(`A rate-limit counter must be a safe integer, got ${value}`)
  }
  return values
}

/** The rows of one database's `rate_limits` table. */
export interface RateLimitRows {
  /** The rows of `subjects` (those that exist). */
  readonly read: (subjects: ReadonlyArray<string>) => Effect.Effect<ReadonlyArray<Row>, SqlError>
  /** `RateLimitStore.get`: the state of `subject`'s row, read without locking it. */
  readonly get: RateLimitStore.RateLimitStoreService["get"]
}

/** @internal */
export const make = (db: PostgresDatabase.PostgresDatabase): RateLimitRows => {
  const readSql = `SELECT subject, ${names.join(", ")} FROM ${db.table("rate_limits")} WHERE subject = ANY($1::text[])`
  const read = (subjects: ReadonlyArray<string>) =>
    db.sql.unsafe(readSql, [subjects]).values as unknown as Effect.Effect<ReadonlyArray<Row>, SqlError>
  return {
    read,
    get: (subject) =>
      read([subject]).pipe(
        Effect.map((rows) => rows[0] === undefined ? undefined : stateOf(rows[0])),
        mapStoreError("Reading a rate-limit state")
      )
  }
}
