/**
 * Which operations are deprecated, since when, until when, and what replaces
 * them. `getPet` is deprecated with a sunset of 2030-12-05T00:00:00Z; from that
 * instant on it fails with `Gone`.
 *
 * @since 1.0.0
 */
import type { Effect } from "effect"
import { Context } from "effect"
import type { Gone } from "./ApiError.js"
import type { OperationName } from "./PetOperations.js"

/**
 * The deprecation of one operation, as data an adapter turns into the
 * `Deprecation`, `Sunset` and `Link` headers.
 *
 * @since 1.0.0
 * @category models
 */
export interface Deprecation {
  readonly operation: OperationName
  readonly deprecatedAt: Date
  readonly sunset: Date
  /** The replacement operation and its path relative to the base address. */
  readonly successor: { readonly operation: OperationName; readonly path: string }
}

/**
 * @since 1.0.0
 * @category models
 */
export interface DeprecationPolicyService {
  /** The deprecation of `operation`, if it is deprecated. */
  readonly forOperation: (operation: OperationName) => Deprecation | undefined
  /** At the current `Clock` time: the deprecation to announce, or `Gone` from the sunset instant on. */
  readonly check: (operation: OperationName) => Effect.Effect<Deprecation | undefined, Gone>
}

/**
 * @since 1.0.0
 * @category tags
 */
export class DeprecationPolicy extends Context.Tag("@animal-store/core/DeprecationPolicy")<
  DeprecationPolicy,
  DeprecationPolicyService
>() {}
