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

/**
 * Opens the existing database `filename` with the given `synchronous` and WAL pages between automatic
 * checkpoints, and no busy timeout: a statement refused by another connection's lock fails at once
 * (`SQLITE_BUSY`), to be retried off the event loop.
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
  const connection = new Database(filename, { fileMustExist: true, timeout: 0 })
  try {
    connection.pragma(`synchronous = ${Math.trunc(settings.synchronous)}`)
    connection.pragma(`wal_autocheckpoint = ${Math.trunc(settings.autocheckpoint)}`)
    return connection
  } catch (error) {
    connection.close()
    throw error
  }
}
