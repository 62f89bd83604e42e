/**
 * The part of better-sqlite3 the benchmarks use (it ships no types), with
 * nothing else loaded: the floor server imports only this.
 */
import Database from "better-sqlite3"
import { parseArgs } from "node:util"

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

/**
 * The command line of a reference server (`--port`, `--host`, `--db`,
 * `--anonymous-per-minute`) and its database, opened with the store's
 * durability settings (WAL, `synchronous = NORMAL`, a busy timeout).
 */
export const referenceServer = (defaultPort: number) => {
  const { values } = parseArgs({
    options: {
      port: { type: "string", default: String(defaultPort) },
      host: { type: "string", default: "127.0.0.1" },
      db: { type: "string" },
      "anonymous-per-minute": { type: "string", default: "60" }
    }
  })
  if (values.db === undefined) throw new Error("--db is required")
  const db = openRaw(values.db)
  db.pragma("journal_mode = WAL")
  db.pragma("synchronous = NORMAL")
  db.pragma("busy_timeout = 5000")
  return {
    port: Number(values.port),
    host: values.host,
    anonymousPerMinute: Number(values["anonymous-per-minute"]),
    db
  }
}
