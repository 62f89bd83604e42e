/**
 * For speed only: a connection of the better-sqlite3 driver of its own, beside the `SqliteClient`'s, on
 * which the ports' statements run synchronously in the caller's turn (record 0003).
 *
 * @internal
 */
import { createRequire } from "node:module"

/** The part of a better-sqlite3 statement the store uses. */
export interface Statement {
  readonly reader: boolean
  raw(toggle: boolean): this
  all(...params: ReadonlyArray<unknown>): Array<unknown>
  run(...params: ReadonlyArray<unknown>): { readonly changes: number; readonly lastInsertRowid: number | bigint }
}

/** The part of a better-sqlite3 connection the store uses. */
export interface Connection {
  readonly inTransaction: boolean
  prepare(sql: string): Statement
  pragma(text: string): unknown
  close(): void
}

/** How long a statement waits in SQLite for another connection's lock before it fails. @internal */
export const busyTimeoutMillis = 1

/**
 * Opens the existing database `filename` with the given `synchronous` and WAL pages between automatic
 * checkpoints, and a busy timeout of 1 ms: a statement refused by another connection's lock sleeps
 * once for 1 ms and tries again (a write holds the lock for tens of µs), then fails (`SQLITE_BUSY`),
 * to be retried off the event loop (record 0059).
 *
 * @internal
 */
export const open = (
  filename: string,
  settings: { readonly synchronous: number; readonly autocheckpoint: number }
): Connection => {
  const Database = createRequire(import.meta.url)("better-sqlite3") as new(
    filename: string,
    options: { readonly fileMustExist: boolean; readonly timeout: number }
  ) => Connection
  const connection = new Database(filename, { fileMustExist: true, timeout: busyTimeoutMillis })
  try {
    connection.pragma(`synchronous = ${Math.trunc(settings.synchronous)}`)
    connection.pragma(`wal_autocheckpoint = ${Math.trunc(settings.autocheckpoint)}`)
    return connection
  } catch (error) {
    connection.close()
    throw error
  }
}
