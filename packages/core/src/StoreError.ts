/**
 * The failure of a store (a port implementation): the storage could not be
 * opened, read or written; `Unavailable` is temporary.
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
 * Whether a store failure is temporary: the same request may succeed later.
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
 * The objects along a driver failure's cause chain, outermost first, at most 8.
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
 * The first string `code` along the cause chain that `accept`s (a SQLite code, a SQLSTATE...).
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
 * The distinct messages along the cause chain, outermost first, joined with `": "`.
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
