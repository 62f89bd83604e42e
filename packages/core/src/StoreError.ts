/**
 * The failure of a store (a port implementation): the storage could not be
 * opened, read or written. Adapters answer it as `internal_error`.
 *
 * @since 1.0.0
 */
import { Data } from "effect"

/**
 * @since 1.0.0
 * @category errors
 */
export class StoreError extends Data.TaggedError("StoreError")<{
  readonly reason: "Unavailable" | "ReadOnly" | "Corrupt" | "Incompatible" | "Unknown"
  readonly message: string
  readonly cause?: unknown
}> {}
