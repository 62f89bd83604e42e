/**
 * The failure of a store (a port implementation): the storage could not be
 * opened, read or written. Adapters answer "Unavailable" (the store cannot be
 * reached now: a database server down, restarting or overloaded, a lock held
 * too long) as 503 `service_unavailable` with `Retry-After`, and every other
 * reason as 500 `internal_error`.
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

/**
 * Whether a store failure is temporary: the store could not be reached, and
 * the same request may succeed later (answered 503 with `Retry-After`).
 *
 * @since 1.0.0
 * @category guards
 */
export const isUnavailable = (error: StoreError): boolean => error.reason === "Unavailable"

/**
 * The `Retry-After` of a 503 `service_unavailable`, in seconds.
 *
 * @since 1.0.0
 * @category constants
 */
export const retryAfterSeconds = 1
