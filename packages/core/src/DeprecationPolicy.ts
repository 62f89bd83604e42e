/**
 * Which operations are deprecated, since when, until when, and what replaces
 * them; from its sunset on, an operation fails with `Gone`.
 *
 * @since 1.0.0
 */
import { Context, Effect, Layer } from "effect"
import { Gone } from "./ApiError.js"
import type { OperationName } from "./PetOperations.js"

/**
 * The deprecation of one operation, as data an adapter announces.
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

/**
 * The deprecations of the interface: `getPet`, sunset 2030-12-05, replaced by `listPets`.
 *
 * @since 1.0.0
 * @category constants
 */
export const deprecations: ReadonlyArray<Deprecation> = [
  {
    operation: "getPet",
    deprecatedAt: new Date("2025-01-01T00:00:00Z"),
    sunset: new Date("2030-12-05T00:00:00Z"),
    successor: { operation: "listPets", path: "/pets" }
  }
]

/**
 * A policy of the given deprecations, reading the time from `Clock`.
 *
 * @since 1.0.0
 * @category constructors
 */
export const make = (entries: ReadonlyArray<Deprecation>): DeprecationPolicyService => {
  const forOperation = (operation: OperationName) => entries.find((entry) => entry.operation === operation)
  return {
    forOperation,
    check: (operation) => {
      const deprecation = forOperation(operation)
      if (deprecation === undefined) return Effect.succeed(undefined)
      return Effect.clockWith((clock) =>
        clock.unsafeCurrentTimeMillis() >= deprecation.sunset.getTime()
          ? Effect.fail(new Gone({ operation, sunset: deprecation.sunset }))
          : Effect.succeed(deprecation)
      )
    }
  }
}

/**
 * The policy of the interface's `deprecations`.
 *
 * @since 1.0.0
 * @category layers
 */
export const layer: Layer.Layer<DeprecationPolicy> = Layer.succeed(DeprecationPolicy, make(deprecations))
