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

/** Opens a raw better-sqlite3 connection to `filename`. */
export const openRaw = (filename: string): Connection =>
  new (Database as unknown as new(filename: string) => Connection)(filename)
