/**
 * HTTP's side of the errors: the codes of the `Error` body (core's domain
 * codes and four only HTTP raises), the status each is answered with, the
 * body itself, and the errors the adapter raises before any operation runs
 * (decisions.md; record 0062).
 *
 * @since 1.0.0
 */
import { ApiError } from "@animal-store/core"
import { Data, Schema } from "effect"

/**
 * The codes that only HTTP raises: no operation fails with them.
 *
 * @since 1.0.0
 * @category schemas
 */
export const ProtocolCode = Schema.Literal(
  "method_not_allowed",
  "payload_too_large",
  "unsupported_media_type",
  "expectation_failed"
)

/**
 * @since 1.0.0
 * @category models
 */
export type ProtocolCode = typeof ProtocolCode.Type

/**
 * The closed set of codes of the `Error` body, each with the status it is
 * answered with.
 *
 * @since 1.0.0
 * @category constants
 */
export const statusByCode = {
  invalid_request: 400,
  unauthorized: 401,
  not_found: 404,
  method_not_allowed: 405,
  idempotency_key_in_use: 409,
  gone: 410,
  payload_too_large: 413,
  unsupported_media_type: 415,
  expectation_failed: 417,
  idempotency_key_reused: 422,
  rate_limited: 429,
  api_key_banned: 429,
  internal_error: 500,
  service_unavailable: 503
} as const satisfies Record<ApiError.ErrorCode | ProtocolCode, number>

/**
 * @since 1.0.0
 * @category models
 */
export type ErrorCode = keyof typeof statusByCode

/**
 * @since 1.0.0
 * @category schemas
 */
export const ErrorCode = Schema.Literal(
  ...(Object.keys(statusByCode) as [ErrorCode, ...Array<ErrorCode>])
)

/**
 * The `Error` body of every error response.
 *
 * @since 1.0.0
 * @category schemas
 */
export const ErrorBody = Schema.Struct({
  code: ErrorCode,
  message: Schema.String,
  status: Schema.Int,
  details: Schema.optional(Schema.Array(ApiError.ErrorDetail))
}).annotations({ identifier: "Error" })

/**
 * @since 1.0.0
 * @category models
 */
export type ErrorBody = typeof ErrorBody.Type

/**
 * Builds an `Error` body whose `status` matches its code.
 *
 * @since 1.0.0
 * @category constructors
 */
export const makeBody = (
  code: ErrorCode,
  message: string,
  details?: ReadonlyArray<ApiError.ErrorDetail>
): ErrorBody =>
  details === undefined
    ? { code, message, status: statusByCode[code] }
    : { code, message, status: statusByCode[code], details }

/**
 * No route has this path (`GET /store/orders` included): 404 `not_found`.
 *
 * @since 1.0.0
 * @category errors
 */
export class RouteNotFound extends Data.TaggedError("RouteNotFound")<{ readonly path: string }> {
  /** @since 1.0.0 */
  readonly code = "not_found" as const
  /** @since 1.0.0 */
  override get message(): string {
    return `No route for ${this.path}`
  }
}

/**
 * The path is an operation's, but its parameter cannot be read (it is not
 * percent-encoded UTF-8): a malformed id, 400 `invalid_request`.
 *
 * @since 1.0.0
 * @category errors
 */
export class MalformedPathParameter extends Data.TaggedError("MalformedPathParameter")<{}> {
  /** @since 1.0.0 */
  readonly code = "invalid_request" as const
  /** @since 1.0.0 */
  override get message(): string {
    return "The path parameter is not a valid identifier"
  }
}

/**
 * The path exists, not with this method: 405 `method_not_allowed` with `Allow`.
 *
 * @since 1.0.0
 * @category errors
 */
export class MethodNotAllowed extends Data.TaggedError("MethodNotAllowed")<{
  readonly method: string
  readonly allow: ReadonlyArray<string>
}> {
  /** @since 1.0.0 */
  readonly code = "method_not_allowed" as const
  /** @since 1.0.0 */
  override get message(): string {
    return `Method ${this.method} is not allowed here; allowed: ${this.allow.join(", ")}`
  }
}

/**
 * The body is over the limit: 413 `payload_too_large`.
 *
 * @since 1.0.0
 * @category errors
 */
export class PayloadTooLarge extends Data.TaggedError("PayloadTooLarge")<{ readonly maxBytes: number }> {
  /** @since 1.0.0 */
  readonly code = "payload_too_large" as const
  /** @since 1.0.0 */
  override get message(): string {
    return `The request body must be at most ${this.maxBytes} bytes`
  }
}

/**
 * The body is not `application/json`: 415 `unsupported_media_type`.
 *
 * @since 1.0.0
 * @category errors
 */
export class UnsupportedMediaType extends Data.TaggedError("UnsupportedMediaType")<{
  readonly contentType: string | undefined
}> {
  /** @since 1.0.0 */
  readonly code = "unsupported_media_type" as const
  /** @since 1.0.0 */
  override get message(): string {
    return this.contentType === undefined
      ? "Content-Type application/json is required"
      : `Content-Type ${this.contentType} is not supported; use application/json`
  }
}

/**
 * The body is not valid UTF-8 JSON, or could not be read: 400 `invalid_request`.
 *
 * @since 1.0.0
 * @category errors
 */
export class MalformedBody extends Data.TaggedError("MalformedBody")<{ readonly reason: string }> {
  /** @since 1.0.0 */
  readonly code = "invalid_request" as const
  /** @since 1.0.0 */
  override get message(): string {
    return `The request body is not valid JSON: ${this.reason}`
  }
}

/**
 * The body has a `Content-Encoding` other than `identity`, which the server
 * does not decode: 415 `unsupported_media_type`.
 *
 * @since 1.0.0
 * @category errors
 */
export class UnsupportedContentEncoding extends Data.TaggedError("UnsupportedContentEncoding")<{
  readonly contentEncoding: string
}> {
  /** @since 1.0.0 */
  readonly code = "unsupported_media_type" as const
  /** @since 1.0.0 */
  override get message(): string {
    return `Content-Encoding ${this.contentEncoding} is not supported; send the body uncompressed`
  }
}

/**
 * Why a request was refused before it reached a route: the host's HTTP
 * parser rejected it (headers too large, not received in time, not HTTP),
 * or it is ambiguous (an HTTP/1.1 request without `Host`, a repeated
 * `Host`, `Authorization`, `Content-Length` or `Content-Type`), or it asks
 * for what the server does not do (an `Expect` other than `100-continue`,
 * `CONNECT`).
 *
 * @since 1.0.0
 * @category models
 */
export type InvalidHttpReason =
  | "headers_too_large"
  | "timeout"
  | "malformed"
  | "missing_host"
  | "repeated_host"
  | "repeated_authorization"
  | "repeated_content_length"
  | "repeated_content_type"
  | "expectation_failed"
  | "connect"

const invalidHttpMessages: Readonly<Record<InvalidHttpReason, string>> = {
  headers_too_large: "The request headers are too large",
  timeout: "The request was not received in time",
  malformed: "The request is not valid HTTP",
  missing_host: "An HTTP/1.1 request needs a Host header",
  repeated_host: "The request has more than one Host header",
  repeated_authorization: "The request has more than one Authorization header",
  repeated_content_length: "The request has more than one Content-Length header",
  repeated_content_type: "The request has more than one Content-Type header",
  expectation_failed: "The only expectation supported is Expect: 100-continue",
  connect: "Method CONNECT is not allowed"
}

/**
 * A request refused before it reached a route (see `InvalidHttpReason`):
 * 400 `invalid_request`; 417 `expectation_failed` for an `Expect` other
 * than `100-continue`; 405 `method_not_allowed` (with `Allow`) for `CONNECT`.
 *
 * @since 1.0.0
 * @category errors
 */
export class InvalidHttp extends Data.TaggedError("InvalidHttp")<{
  readonly reason: InvalidHttpReason
}> {
  /** @since 1.0.0 */
  get code(): "invalid_request" | "expectation_failed" | "method_not_allowed" {
    return this.reason === "expectation_failed"
      ? "expectation_failed"
      : this.reason === "connect"
      ? "method_not_allowed"
      : "invalid_request"
  }
  /** @since 1.0.0 */
  override get message(): string {
    return invalidHttpMessages[this.reason]
  }
}

/**
 * @since 1.0.0
 * @category models
 */
export type ProtocolError =
  | RouteNotFound
  | MalformedPathParameter
  | MethodNotAllowed
  | PayloadTooLarge
  | UnsupportedMediaType
  | UnsupportedContentEncoding
  | MalformedBody
  | InvalidHttp

const protocolTags: Readonly<Record<ProtocolError["_tag"], true>> = {
  RouteNotFound: true,
  MalformedPathParameter: true,
  MethodNotAllowed: true,
  PayloadTooLarge: true,
  UnsupportedMediaType: true,
  UnsupportedContentEncoding: true,
  MalformedBody: true,
  InvalidHttp: true
}

/**
 * Whether a failure is one of the adapter's protocol errors.
 *
 * @since 1.0.0
 * @category refinements
 */
export const isProtocolError = (failure: { readonly _tag: string }): failure is ProtocolError =>
  Object.hasOwn(protocolTags, failure._tag)
