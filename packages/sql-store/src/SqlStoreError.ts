/**
 * Core's `StoreError` from the failures of a SQL driver: a store gives its
 * table of codes (SQLSTATE, SQLite result codes, Node error codes) and
 * messages, and every SQL effect of the store maps its `SqlError`, and the
 * defects @effect/sql raises for failures it does not type, through it.
 *
 * @since 1.0.0
 */
import type { StoreError } from "@animal-store/core"
import type { SqlError } from "@effect/sql/SqlError"
import type { Effect } from "effect"
import * as internal from "./internal/storeError.js"

/**
 * @since 1.0.0
 * @category models
 */
export type Reason = StoreError.StoreError["reason"]

/**
 * One line of a store's table: a failure whose driver code matches `code`, or
 * whose messages match `message`, is a `reason`, explained by `hint`.
 *
 * @since 1.0.0
 * @category models
 */
export interface Rule {
  readonly code?: RegExp | undefined
  readonly message?: RegExp | undefined
  readonly reason: Reason
  readonly hint: string
}

/**
 * A store's table: which `code`s along a failure's cause chain are its
 * driver's, its rules (the first that matches wins) and the hint of a reason
 * no rule gave (the fallback's, else `Unknown`'s).
 *
 * @since 1.0.0
 * @category models
 */
export interface Classifier {
  readonly isCode: (code: string) => boolean
  readonly rules: ReadonlyArray<Rule>
  readonly hints: { readonly [R in Reason]?: string } & { readonly Unknown: string }
}

/**
 * @since 1.0.0
 * @category constructors
 */
export const make = (classifier: Classifier): Classifier => classifier

/**
 * The `StoreError` of a driver failure, its message naming what was being
 * done: `<doing>: <hint> (<code>: <messages along the cause chain>)`.
 *
 * @since 1.0.0
 * @category constructors
 */
export const fromCause: (
  classifier: Classifier,
  doing: string,
  cause: unknown,
  fallback?: Reason
) => StoreError.StoreError = internal.fromCause

/**
 * Maps the failures of a SQL effect, and the defects that are driver failures
 * (a `COMMIT` on a lost connection), to `StoreError`. Other defects stay
 * defects.
 *
 * @since 1.0.0
 * @category combinators
 */
export const mapError: (
  classifier: Classifier,
  doing: string
) => <A, R>(self: Effect.Effect<A, SqlError | StoreError.StoreError, R>) => Effect.Effect<A, StoreError.StoreError, R> =
  internal.mapError
