/**
 * Checks of the rows a driver returns, made where a store reads them: a row's
 * type is known without a cast, and a row of another shape fails its statement.
 *
 * @since 1.0.0
 */
import { SqlError } from "@effect/sql/SqlError"
import type * as Statement from "@effect/sql/Statement"
import { Effect, Predicate } from "effect"

/**
 * A check that a value read from the database has type `A`.
 *
 * @since 1.0.0
 * @category models
 */
export type Guard<A> = Predicate.Refinement<unknown, A>

/**
 * @since 1.0.0
 * @category guards
 */
export const isString: Guard<string> = Predicate.isString

/**
 * @since 1.0.0
 * @category guards
 */
export const isNumber: Guard<number> = Predicate.isNumber

/**
 * An integer column as drivers give it: a number, or a decimal string (PostgreSQL's `bigint`).
 *
 * @since 1.0.0
 * @category guards
 */
export const isInteger: Guard<number | string> = Predicate.or(Predicate.isNumber, Predicate.isString)

/**
 * `guard`, or NULL.
 *
 * @since 1.0.0
 * @category guards
 */
export const isNullOr = <A>(guard: Guard<A>): Guard<A | null> => Predicate.or(Predicate.isNull, guard)

/**
 * One of `literals` (a `Schema.Literal`'s `literals`).
 *
 * @since 1.0.0
 * @category guards
 */
export const isLiteral = <const L extends ReadonlyArray<string>>(literals: L): Guard<L[number]> => {
  const set: ReadonlySet<unknown> = new Set(literals)
  return (u): u is L[number] => set.has(u)
}

/**
 * A row of column values, one guard per column (at least as many values as guards: a statement
 * may return more columns than the row's).
 *
 * @since 1.0.0
 * @category guards
 */
export const tuple = <const G extends ReadonlyArray<Guard<unknown>>>(
  ...guards: G
): Guard<{ readonly [K in keyof G]: G[K] extends Guard<infer A> ? A : never }> =>
(u): u is { readonly [K in keyof G]: G[K] extends Guard<infer A> ? A : never } => {
  if (!Array.isArray(u) || u.length < guards.length) return false
  for (let i = 0; i < guards.length; i++) {
    if (!guards[i]!(u[i])) return false
  }
  return true
}

/**
 * The failure of a statement that returned a row `isRow` refuses.
 *
 * @since 1.0.0
 * @category errors
 */
export const unexpectedRow = (sql: string): SqlError =>
  new SqlError({ message: `A row of an unexpected shape, from: ${sql}` })

/**
 * `rows`, each checked by `isRow`; throws `unexpectedRow` on the first it refuses.
 *
 * @since 1.0.0
 * @category conversions
 */
export const check = <A>(rows: ReadonlyArray<unknown>, isRow: Guard<A>, sql: string): ReadonlyArray<A> => {
  if (rows.every(isRow)) return rows
  throw unexpectedRow(sql)
}

/**
 * The rows of `statement` as arrays of column values, each checked by `isRow`.
 *
 * @since 1.0.0
 * @category constructors
 */
export const values = <A>(statement: Statement.Statement<unknown>, isRow: Guard<A>): Effect.Effect<ReadonlyArray<A>, SqlError> =>
  Effect.flatMap(
    statement.values,
    (rows: ReadonlyArray<unknown>) =>
      rows.every(isRow) ? Effect.succeed(rows) : Effect.fail(unexpectedRow(statement.compile()[0]))
  )
