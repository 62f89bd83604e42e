/**
 * The part of better-sqlite3 the benchmarks use (it ships no types), with
 * nothing else loaded: the floor server imports only this.
 */
import Database from "better-sqlite3"

export interface Statement {
  run(...params: ReadonlyArray<unknown>): { readonly changes: number; readonly lastInsertRowid: number | bigint }
  get(...params: ReadonlyArray<unknown>): unknown
  all(...params: ReadonlyArray<unknown>): Array<unknown>
}

export interface Transaction<A extends ReadonlyArray<unknown>, R> {
  (...args: A): R
  readonly immediate: (...args: A) => R
}

export interface Connection {
  prepare(sql: string): Statement
  pragma(source: string): unknown
  exec(sql: string): void
  transaction<A extends ReadonlyArray<unknown>, R>(f: (...args: A) => R): Transaction<A, R>
  close(): void
}

const columns = "id, name, category_id AS categoryId, status"

/**
 * The floors' statements on `pets`, each answering rows shaped like a `Pet`:
 * a page after an id (`afterId`, `limit`), the same of one status (`status`,
 * `afterId`, `limit`), one animal (`id`), and an insert answering the new row
 * (`name`, `categoryId`, `status`).
 */
export const floorSql = {
  list: `SELECT ${columns} FROM pets WHERE id > ? ORDER BY id LIMIT ?`,
  listByStatus: `SELECT ${columns} FROM pets WHERE status = ? AND id > ? ORDER BY id LIMIT ?`,
  find: `SELECT ${columns} FROM pets WHERE id = ?`,
  insert: `INSERT INTO pets (name, category_id, status) VALUES (?, ?, ?) RETURNING ${columns}`
} as const

/** Opens a raw better-sqlite3 connection to `filename`. */
export const openRaw = (filename: string): Connection =>
  new (Database as unknown as new(filename: string) => Connection)(filename)
