/**
 * A hardened Node http server for the adapter's listeners (record 0014):
 * header size and time limits, an `Error` body for requests Node cannot
 * parse, and `drain`, which closes keep-alive connections on shutdown (record 0028).
 *
 * @since 1.0.0
 */
import * as Http from "node:http"
import type * as Net from "node:net"
import type { Duplex } from "node:stream"
import * as ErrorResponse from "./ErrorResponse.js"
import { jsonContentType } from "./HttpExchange.js"
import { InvalidHttp } from "./ProtocolError.js"

/**
 * Limits of the Node http server.
 *
 * @since 1.0.0
 * @category models
 */
export interface ServerLimits {
  /** Largest size of the request line and headers, in bytes. */
  readonly maxHeaderSize: number
  /** Time to receive the headers, in ms. */
  readonly headersTimeout: number
  /** Time to receive the whole request, in ms. */
  readonly requestTimeout: number
}

/**
 * The listeners of the server's events, as `NodeListeners.make` makes them.
 *
 * @since 1.0.0
 * @category models
 */
export interface Listeners {
  readonly request: (request: Http.IncomingMessage, response: Http.ServerResponse) => void
  readonly checkContinue: (request: Http.IncomingMessage, response: Http.ServerResponse) => void
  /** A request with an `Expect` other than `100-continue`. */
  readonly checkExpectation?: ((request: Http.IncomingMessage, response: Http.ServerResponse) => void) | undefined
  /** A `CONNECT` request: the socket is the listener's. */
  readonly connect?: ((request: Http.IncomingMessage, socket: Duplex, head: Buffer) => void) | undefined
  readonly clientError: (error: NodeJS.ErrnoException, socket: Duplex) => void
}

/**
 * 16 KiB of headers, 10 s for them, 30 s for the whole request.
 *
 * @since 1.0.0
 * @category constants
 */
export const defaultLimits: ServerLimits = { maxHeaderSize: 16_384, headersTimeout: 10_000, requestTimeout: 30_000 }

/**
 * Why Node's HTTP parser rejected a request, from its `clientError`.
 *
 * @since 1.0.0
 * @category conversions
 */
export const rejectionReason = (error: NodeJS.ErrnoException): InvalidHttp["reason"] =>
  error.code === "HPE_HEADER_OVERFLOW"
    ? "headers_too_large"
    : error.code === "ERR_HTTP_REQUEST_TIMEOUT"
    ? "timeout"
    : "malformed"

const onClientError = (error: NodeJS.ErrnoException, socket: Duplex): void => {
  const pending = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage
  if (error.code === "ECONNRESET" || !socket.writable || pending?.headersSent === true) {
    socket.destroy()
    return
  }
  const body = JSON.stringify(ErrorResponse.body(new InvalidHttp({ reason: rejectionReason(error) })))
  socket.end(
    `HTTP/1.1 400 Bad Request\r\ncontent-type: ${jsonContentType}\r\ncontent-length: ${
      Buffer.byteLength(body)
    }\r\nconnection: close\r\n\r\n${body}`
  )
}

/** The open connections of each server `make` made, and whether it drains. */
const connections = new WeakMap<Http.Server, { draining: boolean; readonly sockets: Set<Net.Socket> }>()

/** The response a connection is writing now, if any. */
const pendingResponse = (socket: Net.Socket): Http.ServerResponse | undefined =>
  (socket as Net.Socket & { _httpMessage?: Http.ServerResponse | null })._httpMessage ?? undefined

const closeAfterResponse = (_request: Http.IncomingMessage, response: Http.ServerResponse): void => {
  response.setHeader("connection", "close")
}

/**
 * Starts the shutdown of `server`: responses not yet written carry
 * `Connection: close` and idle connections are closed. Call it before `server.close()`.
 *
 * @since 1.0.0
 * @category constructors
 */
export const drain = (server: Http.Server): void => {
  const state = connections.get(server)
  if (state !== undefined && !state.draining) {
    state.draining = true
    server.prependListener("request", closeAfterResponse)
    // Without a `checkContinue` listener Node answers `100 Continue` itself: adding one would stop that.
    if (server.listenerCount("checkContinue") > 0) server.prependListener("checkContinue", closeAfterResponse)
    const closeIdle = () => setImmediate(() => server.closeIdleConnections())
    for (const socket of state.sockets) {
      const response = pendingResponse(socket)
      if (response === undefined) continue
      if (!response.headersSent) response.setHeader("connection", "close")
      else response.once("finish", closeIdle)
    }
  }
  server.closeIdleConnections()
}

/**
 * A Node http server with the limits; with `listeners`, they serve every event.
 *
 * @since 1.0.0
 * @category constructors
 */
export const make = (limits?: Partial<ServerLimits>, listeners?: Listeners): Http.Server => {
  const { headersTimeout, maxHeaderSize, requestTimeout } = { ...defaultLimits, ...limits }
  const server = Http.createServer({
    maxHeaderSize,
    headersTimeout,
    requestTimeout,
    connectionsCheckingInterval: Math.min(1_000, headersTimeout),
    // With the listeners, a request without `Host` is theirs to refuse (with an `Error` body).
    requireHostHeader: listeners === undefined
  })
  if (listeners === undefined) {
    server.on("clientError", onClientError)
  } else {
    server.on("request", listeners.request)
    server.on("checkContinue", listeners.checkContinue)
    if (listeners.checkExpectation !== undefined) server.on("checkExpectation", listeners.checkExpectation)
    if (listeners.connect !== undefined) server.on("connect", listeners.connect)
    server.on("clientError", listeners.clientError)
  }
  const sockets = new Set<Net.Socket>()
  connections.set(server, { draining: false, sockets })
  server.on("connection", (socket: Net.Socket) => {
    sockets.add(socket)
    socket.once("close", () => sockets.delete(socket))
  })
  return server
}
