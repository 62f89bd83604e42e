/**
 * Statements run synchronously on one SQLite connection, each throwing
 * SQLite's error: the driver's own prepared statements, or the
 * `SqliteClient`'s connection where a caller's transaction or a private
 * in-memory database lives. The ports' SQL is written once, on this.
 *
 * @internal
 */
import { SqlRow } from "@animal-store/sql-store"
import type * as SqlConnection from "@effect/sql/SqlConnection"
import { Cause, Effect, Exit } from "effect"
import type * as Driver from "./driver.js"

/** A value bound to a `?` of a statement. */
export type Parameter = string | number | bigint | Uint8Array | null

/** What a statement that returns no rows did. */
export interface RunResult {
  readonly changes: number
  readonly lastInsertRowid: number | bigint
}

/** @internal */
export interface Statements {
  /** The rows of a query, each an array of its column values in the order of its columns, checked by `isRow`. */
  readonly values: <Row>(isRow: SqlRow.Guard<Row>, sql: string, ...params: ReadonlyArray<Parameter>) => ReadonlyArray<Row>
  /** The rows of a query as objects by column name, checked by `isRow`. */
  readonly objects: <Row>(isRow: SqlRow.Guard<Row>, sql: string, ...params: ReadonlyArray<Parameter>) => ReadonlyArray<Row>
  /** Runs a statement that returns no rows. */
  readonly run: (sql: string, ...params: ReadonlyArray<Parameter>) => RunResult
}

/**
 * The driver's statements (`driver.ts`), prepared once each (record 0003).
 *
 * @internal
 */
export const ofDriver = (db: Driver.Connection): Statements => {
  const rows = new Map<string, Driver.Statement>()
  const arrays = new Map<string, Driver.Statement>()
  const prepared = (cache: Map<string, Driver.Statement>, sql: string, raw: boolean) => {
    let statement = cache.get(sql)
    if (statement === undefined) {
      statement = db.prepare(sql)
      if (raw && statement.reader) statement.raw(true)
      cache.set(sql, statement)
    }
    return statement
  }
  return {
    values: (isRow, sql, ...params) => SqlRow.check(prepared(arrays, sql, true).all(...params), isRow, sql),
    objects: (isRow, sql, ...params) => SqlRow.check(prepared(rows, sql, false).all(...params), isRow, sql),
    run: (sql, ...params) => prepared(rows, sql, false).run(...params)
  }
}

/** The result of `effect`, which completes at once; its failure thrown as it is. */
const now = <A>(effect: Effect.Effect<A, unknown>): A => {
  const exit = Effect.runSyncExit(effect)
  if (Exit.isSuccess(exit)) return exit.value
  throw Cause.squash(exit.cause)
}

/**
 * The statements of a `SqliteClient`'s connection (they complete at once: the driver is synchronous).
 *
 * @internal
 */
export const ofConnection = (connection: SqlConnection.Connection): Statements => ({
  values: (isRow, sql, ...params) => SqlRow.check(now(connection.executeValues(sql, params)), isRow, sql),
  objects: (isRow, sql, ...params) => {
    const rows = now(connection.executeRaw(sql, params))
    if (!Array.isArray(rows)) throw SqlRow.unexpectedRow(sql)
    return SqlRow.check(rows, isRow, sql)
  },
  run: (sql, ...params) => {
    const result = now(connection.executeRaw(sql, params))
    if (!isRunResult(result)) throw SqlRow.unexpectedRow(sql)
    return result
  }
})

const isRunResult = (u: unknown): u is RunResult =>
  typeof u === "object" && u !== null && "changes" in u && typeof u.changes === "number" &&
  "lastInsertRowid" in u && (typeof u.lastInsertRowid === "number" || typeof u.lastInsertRowid === "bigint")
