/**
 * The errors that belong to HTTP itself rather than to the interface's
 * operations: unknown routes, unreadable path parameters, wrong methods,
 * and bodies that are too large, of another media type, or not JSON. Each
 * carries its code of decisions.md.
 *
 * @since 1.0.0
 */
import { Data } from "effect"

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
 * @since 1.0.0
 * @category models
 */
/**
 * A request the host's HTTP parser rejected: its headers were too large,
 * they did not arrive in time, or it is not HTTP at all.
 *
 * @since 1.0.0
 * @category errors
 */
export class InvalidHttp extends Data.TaggedError("InvalidHttp")<{
  readonly reason: "headers_too_large" | "timeout" | "malformed"
}> {
  readonly code = "invalid_request" as const
  override get message(): string {
    switch (this.reason) {
      case "headers_too_large":
        return "The request headers are too large"
      case "timeout":
        return "The request was not received in time"
      case "malformed":
        return "The request is not valid HTTP"
    }
  }
}

export type ProtocolError =
  | RouteNotFound
  | MalformedPathParameter
  | MethodNotAllowed
  | PayloadTooLarge
  | UnsupportedMediaType
  | MalformedBody
  | InvalidHttp

const protocolTags: Readonly<Record<ProtocolError["_tag"], true>> = {
  RouteNotFound: true,
  MalformedPathParameter: true,
  MethodNotAllowed: true,
  PayloadTooLarge: true,
  UnsupportedMediaType: true,
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
