/**
 * The failures of a client call, as values (thrown by the Promise client):
 * `ResponseError` when the server answered with an `Error` body (its `code`,
 * the rate-limit headers, when to retry), `TransportError` when no usable
 * answer came after the retries allowed.
 *
 * @since 1.0.0
 */
import type { ApiError } from "@animal-store/core"
import type { ProtocolError } from "@animal-store/http-adapter"
import { Data } from "effect"
import type { RateLimit } from "./RateLimit.js"

/**
 * @since 1.0.0
 * @category errors
 */
export class ResponseError extends Data.TaggedError("ResponseError")<{
  /** The `code` of the `Error` body. */
  readonly code: ProtocolError.ErrorCode
  readonly message: string
  /** The HTTP status. */
  readonly status: number
  /** What is wrong with the request, for `invalid_request`. */
  readonly details: ReadonlyArray<ApiError.ErrorDetail>
  /** The rate-limit headers of the response, when it carried them. */
  readonly rateLimit: RateLimit | undefined
  /** When a retry may be sent (`Retry-After`), for 429 and 503; the end of the ban for `api_key_banned`. */
  readonly retryAt: Date | undefined
  /** How many attempts were sent (1 when the call was not retried, 0 when a known ban refused it unsent). */
  readonly attempts: number
}> {}

/**
 * @since 1.0.0
 * @category errors
 */
export class TransportError extends Data.TaggedError("TransportError")<{
  readonly message: string
  /** How many attempts were sent. */
  readonly attempts: number
  readonly cause: unknown
}> {}

/**
 * @since 1.0.0
 * @category errors
 */
export type ClientError = ResponseError | TransportError

/**
 * Whether `error` is a `ResponseError` of `code`: for `Effect.catchIf`, or a
 * `catch` block of the Promise client.
 *
 * @since 1.0.0
 * @category refinements
 */
export const isCode = <C extends ProtocolError.ErrorCode>(
  error: unknown,
  code: C
): error is ResponseError & { readonly code: C } => error instanceof ResponseError && error.code === code
