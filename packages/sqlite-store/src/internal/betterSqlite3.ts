/**
 * The part of better-sqlite3 the store uses, typed here (the package ships no
 * types).
 */
import { createRequire } from "node:module"

/** @internal */
export interface Statement {
  readonly reader: boolean
  all(...params: ReadonlyArray<unknown>): Array<unknown>
  get(...params: ReadonlyArray<unknown>): unknown
  run(...params: ReadonlyArray<unknown>): { readonly changes: number; readonly lastInsertRowid: number | bigint }
  raw(raw: boolean): this
  safeIntegers(safe: boolean): this
}

/** @internal */
export interface Transaction<A extends ReadonlyArray<unknown>, R> {
  readonly immediate: (...args: A) => R
}

/** @internal */
export interface Database {
  readonly inTransaction: boolean
  prepare(sql: string): Statement
  pragma(source: string): unknown
  exec(sql: string): Database
  transaction<A extends ReadonlyArray<unknown>, R>(f: (...args: A) => R): Transaction<A, R>
  close(): void
}

interface Module {
  new(filename: string, options?: { readonly timeout?: number }): Database
  readonly SqliteError: new(...args: ReadonlyArray<never>) => Error
}

const require = createRequire(import.meta.url)

/** Where better-sqlite3 is, for a worker thread to load the same one. @internal */
export const driverPath: string = require.resolve("better-sqlite3")

const BetterSqlite3 = require(driverPath) as Module

/** @internal */
export const open = (filename: string, busyTimeout = 5_000): Database =>
  new BetterSqlite3(filename, { timeout: busyTimeout })

/** Whether `u` is an error SQLite reported (it carries a `SQLITE_*` code). @internal */
export const isSqliteError = (u: unknown): boolean => u instanceof BetterSqlite3.SqliteError

/** Whether `u` is SQLite's `SQLITE_BUSY` (or one of its extended codes). @internal */
export const isBusy = (u: unknown): boolean =>
  isSqliteError(u) && String((u as { readonly code?: unknown }).code).startsWith("SQLITE_BUSY")
