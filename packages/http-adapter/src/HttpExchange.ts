/**
 * A request and its response as every host hands them over: Node's http
 * server, a web-standard `Request`, an Effect `HttpServer`. The API is one
 * function from `Request` to `Response` (`RequestHandler`); each host binding
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
 * An incoming request. `body` reads at most `maxBytes` bytes of the body,
 * failing as soon as more arrive; it is called at most once, and only for
 * an admitted request.
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
  /**
   * The origin the request was received on (`http://127.0.0.1:8080`), when
   * the host knows it: the servers of the OpenAPI document when no base
   * address is configured. Called only for the documents.
   */
  readonly localOrigin?: (() => string | undefined) | undefined
  readonly body: (maxBytes: number) => Effect.Effect<Uint8Array, PayloadTooLarge | MalformedBody>
}

/**
 * An outgoing response: a status, lower-case headers and a body (text, or
 * bytes for a compressed document). The body of a `HEAD` request's response
 * is the `GET`'s; hosts do not send it.
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

/** What JSON escapes in a string: quotes, backslashes, control characters, and UTF-16 surrogates (lone ones are escaped). */
const escaped = /["\\\u0000-\u001f\ud800-\udfff]/

/**
 * A string as JSON text, as `JSON.stringify` writes it; one with nothing to
 * escape (most names, paths, addresses and ids) is quoted as it is.
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
 * A JSON response whose body is `json`, already JSON (as text or as its UTF-8
 * bytes), status 200 unless given.
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
