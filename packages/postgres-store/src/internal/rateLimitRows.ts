/**
 * The `rate_limits` table's rows (`RateLimitRow`, with NULL counters in a row an earlier version
 * created and never wrote), read by subject.
 *
 * @internal
 */
import type { RateLimitStore } from "@animal-store/core"
import { RateLimitRow } from "@animal-store/sql-store"
import type { SqlError } from "@effect/sql/SqlError"
import { Effect } from "effect"
import type * as PostgresDatabase from "../PostgresDatabase.js"
import * as Prepared from "./prepared.js"
import { mapStoreError } from "./storeError.js"

type State = RateLimitStore.RateLimitState

/** A row: its subject, then its counters, as `pg` gives `bigint`s (strings), or NULLs. */
export type Row = RateLimitRow.RateLimitRow

/** The state a row holds; `undefined` while its counters are NULL. */
export const stateOf = (row: Row): State | undefined => row[1] === null ? undefined : RateLimitRow.toState(row)

/** The counters of `state` in the order of `RateLimitRow.counterColumns`; NULLs for no state. */
export const valuesOf = (state: State | undefined): ReadonlyArray<number | null> =>
  state === undefined ? RateLimitRow.counterColumns.map(() => null) : RateLimitRow.countersOf(state)

/** The rows of one database's `rate_limits` table. */
export interface RateLimitRows {
  /** The rows of `subjects` (those that exist). */
  readonly read: (subjects: ReadonlyArray<string>) => Effect.Effect<ReadonlyArray<Row>, SqlError>
  /** `RateLimitStore.get`: the state of `subject`'s row, read without locking it. */
  readonly get: RateLimitStore.RateLimitStoreService["get"]
}

/** @internal */
export const make = (db: PostgresDatabase.PostgresDatabase): RateLimitRows => {
  const readSql = `SELECT ${RateLimitRow.columns} FROM ${db.table("rate_limits")} WHERE subject = ANY($1::text[])`
  const readRows = Prepared.values(db, readSql, RateLimitRow.isRateLimitRow)
  const read = (subjects: ReadonlyArray<string>) => readRows([subjects])
  return {
    read,
    get: (subject) =>
      read([subject]).pipe(
        Effect.map((rows) => rows[0] === undefined ? undefined : stateOf(rows[0])),
        mapStoreError("Reading a rate-limit state")
      )
  }
}
