/**
 * A request and its response as every host hands them over; each host binding
 * in `HttpAdapter` only converts to and from these.
 *
 * @since 1.0.0
 */
import type { Effect } from "effect"
import type { MalformedBody, PayloadTooLarge } from "./ProtocolError.js"

/**
 * Header values by lower-case name, as Node's `IncomingHttpHeaders`.
 *
 * @since 1.0.0
 * @category models
 */
export type Headers = Readonly<Record<string, string | ReadonlyArray<string> | undefined>>

/**
 * An incoming request; `body` reads at most `maxBytes` and is called at most
 * once, only for an admitted request.
 *
 * @since 1.0.0
 * @category models
 */
export interface Request {
  readonly method: string
  /** The path and the query string, as sent (`/v1/pets?limit=5`). */
  readonly url: string
  readonly headers: Headers
  /** The peer address of the connection, when the host knows it. */
  readonly remoteAddress: string | undefined
  /** The origin the request was received on, when the host knows it (for the documents' servers). */
  readonly localOrigin?: (() => string | undefined) | undefined
  readonly body: (maxBytes: number) => Effect.Effect<Uint8Array, PayloadTooLarge | MalformedBody>
}

/**
 * An outgoing response; a `HEAD` response's body is the `GET`'s, and hosts do not send it.
 *
 * @since 1.0.0
 * @category models
 */
export interface Response {
  readonly status: number
  readonly headers: Readonly<Record<string, string>>
  readonly body: string | Uint8Array
}

/**
 * The one value of a header: the first one when it was sent more than once.
 *
 * @since 1.0.0
 * @category getters
 */
export const header = (request: Request, name: string): string | undefined => {
  const value = request.headers[name]
  return typeof value === "string" || value === undefined ? value : value[0]
}

/**
 * `application/json; charset=utf-8`
 *
 * @since 1.0.0
 * @category constants
 */
export const jsonContentType = "application/json; charset=utf-8"

/** What JSON escapes in a string: quotes, backslashes, control characters, surrogates. */
const escaped = /["\\\u0000-\u001f\ud800-\udfff]/

/**
 * A string as JSON text, as `JSON.stringify` writes it (quoted as is when nothing needs escaping).
 *
 * @since 1.0.0
 * @category constructors
 */
export const jsonString = (text: string): string => escaped.test(text) ? JSON.stringify(text) : `"${text}"`

/**
 * A JSON response of `body`, status 200 unless given.
 *
 * @since 1.0.0
 * @category constructors
 */
export const json = (
  body: unknown,
  options?: { readonly status?: number | undefined; readonly headers?: Readonly<Record<string, string>> | undefined }
): Response => jsonText(JSON.stringify(body), options)

/**
 * A JSON response whose body is already JSON (text or UTF-8 bytes), status 200 unless given.
 *
 * @since 1.0.0
 * @category constructors
 */
export const jsonText = (
  json: string | Uint8Array,
  options?: { readonly status?: number | undefined; readonly headers?: Readonly<Record<string, string>> | undefined }
): Response => ({
  status: options?.status ?? 200,
  headers: Object.assign({ "content-type": jsonContentType }, options?.headers),
  body: json
})
