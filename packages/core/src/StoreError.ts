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

/**
 * The objects along the cause chain of a driver's failure (`cause` of
 * `cause` ...), outermost first, at most 8. For store implementations.
 *
 * @since 1.0.0
 * @category conversions
 */
export const causeChain = (cause: unknown): ReadonlyArray<object> => {
  const chain: Array<object> = []
  for (let current = cause; typeof current === "object" && current !== null && chain.length < 8;) {
    chain.push(current)
    current = (current as { readonly cause?: unknown }).cause
  }
  return chain
}

/**
 * The first string `code` along the cause chain of a driver's failure
 * (`cause` of `cause` ..., outermost first) that `accept`s: a SQLite result
 * code, a SQLSTATE, a Node error code. For store implementations.
 *
 * @since 1.0.0
 * @category conversions
 */
export const codeAlongCauses = (cause: unknown, accept: (code: string) => boolean): string | undefined => {
  for (const current of causeChain(cause)) {
    const code = (current as { readonly code?: unknown }).code
    if (typeof code === "string" && accept(code)) return code
  }
  return undefined
}

/**
 * The distinct messages along the cause chain, outermost first, joined with
 * `": "` (the cause itself as text when none has one). For store
 * implementations.
 *
 * @since 1.0.0
 * @category conversions
 */
export const messagesAlongCauses = (cause: unknown): string => {
  const found: Array<string> = []
  for (const current of causeChain(cause)) {
    const message = current instanceof Error ? current.message : ""
    if (message !== "" && !found.includes(message)) found.push(message)
  }
  return found.length === 0 ? String(cause) : found.join(": ")
}
