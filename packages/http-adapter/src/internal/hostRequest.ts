/**
 * What the host bindings do alike with a request: read its path, query and
 * local origin, and answer it (or refuse it when a header is repeated).
 *
 * @internal
 */
import type { Effect } from "effect"
import type * as HttpExchange from "../HttpExchange.js"
import type { InvalidHttpReason } from "../ProtocolError.js"
import type * as RequestHandler from "../RequestHandler.js"

/** `http://host:port` of the local end of a connection. */
export const localOriginOf = (socket: { readonly localAddress?: string | undefined; readonly localPort?: number | undefined }) =>
(): string | undefined => {
  const address = socket.localAddress
  if (address === undefined || socket.localPort === undefined) return undefined
  const host = address.startsWith("::ffff:") && address.includes(".")
    ? address.slice("::ffff:".length)
    : address.includes(":")
    ? `[${address}]`
    : address
  return `http://${host}:${socket.localPort}`
}

/** The path and query of a request target, absolute or not. */
export const pathAndQuery = (url: string): string => {
  if (url.startsWith("/")) return url
  const parsed = new URL(url)
  return parsed.pathname + parsed.search
}

/** The request's response: refused (400) in its client address's bucket when a header is `repeated`, else handled. */
export const answer = (
  handlers: { readonly handle: RequestHandler.RequestHandler; readonly reject: RequestHandler.RejectionHandler },
  clientAddressOf: (request: HttpExchange.Request) => string,
  exchange: HttpExchange.Request,
  repeated: InvalidHttpReason | undefined
): Effect.Effect<HttpExchange.Response> =>
  repeated === undefined
    ? handlers.handle(exchange)
    : handlers.reject({ remoteAddress: clientAddressOf(exchange), reason: repeated })
