/**
 * The HTTP+JSON interface (`RequestHandler`) as the listeners of a Node http
 * server (`NodeServer.make`); each listener only converts Node's request and response.
 *
 * @since 1.0.0
 */
import { Delivery } from "@animal-store/core"
import { Effect, Exit } from "effect"
import * as Http from "node:http"
import type { Duplex } from "node:stream"
import * as ClientAddress from "./ClientAddress.js"
import * as ErrorResponse from "./ErrorResponse.js"
import type * as HttpExchange from "./HttpExchange.js"
import * as ChildRunCallback from "./internal/childRunCallback.js"
import * as Finish from "./internal/finish.js"
import { localOriginOf } from "./internal/hostRequest.js"
import * as ResponseWrites from "./internal/responseWrites.js"
import * as WireRules from "./internal/wireRules.js"
import * as NodeServer from "./NodeServer.js"
import type { InvalidHttpReason } from "./ProtocolError.js"
import * as RequestBody from "./RequestBody.js"
import * as RequestHandler from "./RequestHandler.js"
import * as RequestId from "./RequestId.js"

/** The head of a response as Node writes it: its headers and its `Content-Length` (no chunked encoding). */
const nodeHeaders = (response: HttpExchange.Response): Http.OutgoingHttpHeaders => {
  const headers: Http.OutgoingHttpHeaders = Object.assign({}, response.headers)
  if (response.status !== 204 && response.status !== 304) headers["content-length"] = Buffer.byteLength(response.body)
  return headers
}

/** Writes the response in one go; nothing when the client is gone; a 500 if Node refuses a header. */
const writeNode = (to: Http.ServerResponse, exit: Exit.Exit<HttpExchange.Response, unknown>): void => {
  if (to.headersSent || to.destroyed) return
  const response = Exit.isSuccess(exit) ? exit.value : ErrorResponse.internalError
  try {
    to.writeHead(response.status, nodeHeaders(response))
  } catch {
    to.writeHead(ErrorResponse.internalError.status, nodeHeaders(ErrorResponse.internalError))
    to.end(ErrorResponse.internalError.body)
    return
  }
  to.end(response.body)
}

/** `writeNode`; a response Node refuses to write loses its connection instead of throwing into its caller. */
const writeOrDrop = (to: Http.ServerResponse, exit: Exit.Exit<HttpExchange.Response, unknown>): void => {
  try {
    writeNode(to, exit)
  } catch {
    to.destroy()
  }
}

const tokenChars = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/

/** The request line of a rejected request, when it is well-formed (an unknown method). */
const requestLineOf = (error: NodeJS.ErrnoException & { rawPacket?: Buffer }) => {
  if (error.code !== "HPE_INVALID_METHOD" || !Buffer.isBuffer(error.rawPacket)) return undefined
  const packet = error.rawPacket.subarray(0, 8_192).toString("latin1")
  const end = packet.indexOf("\r\n")
  if (end === -1) return undefined
  const [method, target, version, ...rest] = packet.slice(0, end).split(" ")
  return method !== undefined && target !== undefined && rest.length === 0 && tokenChars.test(method) &&
      /^HTTP\/1\.[01]$/.test(version ?? "") && /^[\x21-\x7e]+$/.test(target)
    ? { method, target }
    : undefined
}

/** The request id of a response written on the socket by hand, when it has none. */
const requestIdOf = (headers: Readonly<Record<string, string>>): string => headers[RequestId.header] ?? RequestId.generate()

/** A response written on the socket by hand: the parser is gone. */
const rawResponse = (response: HttpExchange.Response): Buffer => {
  const body = typeof response.body === "string" ? Buffer.from(response.body) : Buffer.from(response.body)
  let head = `HTTP/1.1 ${response.status} ${Http.STATUS_CODES[response.status] ?? ""}\r\n`
  for (const name in response.headers) {
    if (name !== "content-length" && name !== "x-request-id") head += `${name}: ${response.headers[name]}\r\n`
  }
  head += `${RequestId.header}: ${requestIdOf(response.headers)}\r\ncontent-length: ${body.length}\r\n\r\n`
  return Buffer.concat([Buffer.from(head, "latin1"), body])
}

/** Ends a raw connection with the response; one that does not close within 10 s is destroyed. */
const endRaw = (socket: Duplex) => (exit: Exit.Exit<HttpExchange.Response>): void => {
  if (!socket.writable || Exit.isFailure(exit)) {
    socket.destroy()
    return
  }
  socket.end(rawResponse(exit.value))
  const timer = setTimeout(() => socket.destroy(), 10_000)
  timer.unref()
  socket.once("close", () => clearTimeout(timer))
}

/** The peer address and headers of a Node request, for its client address. */
const peerOf = (request: Http.IncomingMessage) => ({
  headers: request.headers,
  remoteAddress: request.socket.remoteAddress
})

/**
 * The API as the listeners of a Node http server: `request`, `checkContinue`
 * (`100 Continue` only when the body is about to be read), `checkExpectation`,
 * `connect` and `clientError`. A request refused before it is handled is
 * admitted in its client address's bucket and its connection closed (record 0029).
 *
 * @since 1.0.0
 * @category constructors
 */
export const make = (
  options?: RequestHandler.Options
): Effect.Effect<NodeServer.Listeners, never, RequestHandler.Requirements> =>
  Effect.gen(function*() {
    const { handlePending, held, reject } = yield* RequestHandler.makeHandlers(options)
    const clientAddressOf = ClientAddress.make(options?.trustedProxies ?? [])
    // Requests' writes may be held for a later commit: their responses are written once durable.
    const runCallback = yield* Effect.locally(ChildRunCallback.make<RequestHandler.Requirements>(), Delivery.held, held)
    const writes = ResponseWrites.make(writeOrDrop)
    /** Refuses a request Node parsed before it is handled; its connection is closed. */
    const refuse = (request: Http.IncomingMessage, response: Http.ServerResponse, reason: InvalidHttpReason) =>
      runCallback(reject({ remoteAddress: clientAddressOf(peerOf(request)), reason }), {
        onExit: (exit) => writes.write(response, exit)
      })
    /**
     * Handles a request and writes its response (the handler answers every failure itself; a defect is a
     * 500), once finished: a `Pending` one once its writes are durable, on a fiber of its own when lost.
     */
    const run = (to: Http.ServerResponse, request: HttpExchange.Request) =>
      runCallback(Effect.map(Effect.exit(handlePending(request)), (exit) => {
        if (Exit.isFailure(exit)) return writes.write(to, exit)
        Finish.whenFinished(exit.value, (done) => {
          if (Effect.isEffect(done)) runCallback(done, { onExit: (finished) => writes.write(to, finished) })
          else writes.write(to, Exit.succeed(done))
        })
      }))
    const serve = (request: Http.IncomingMessage, response: Http.ServerResponse, expectsContinue: boolean) => {
      const refusal = WireRules.refusalOfNode(request)
      if (refusal !== undefined) return refuse(request, response, refusal)
      const exchangeWith = (body: HttpExchange.Request["body"]): HttpExchange.Request => ({
        method: request.method ?? "GET",
        url: request.url ?? "/",
        headers: request.headers,
        remoteAddress: request.socket.remoteAddress,
        localOrigin: localOriginOf(request.socket),
        body
      })
      const fromNode = RequestBody.fromNode(request)
      if (expectsContinue) {
        return run(
          response,
          exchangeWith((maxBytes) =>
            Effect.suspend(() => {
              if (!response.headersSent) response.writeContinue()
              return fromNode(maxBytes)
            })
          )
        )
      }
      const exchange = exchangeWith(fromNode)
      if (!RequestBody.isReadAhead(exchange)) return run(response, exchange)
      // Then the request is handled in one go: its fiber never waits for the body.
      RequestBody.readNode(
        request,
        RequestBody.maxBytes,
        (read) => writes.listen(() => run(response, exchangeWith(RequestBody.fromRead(read))))
      )
    }
    return {
      request: (request, response) => writes.listen(() => serve(request, response, false)),
      checkContinue: (request, response) => writes.listen(() => serve(request, response, true)),
      checkExpectation: (request, response) =>
        writes.listen(() => refuse(request, response, WireRules.refusalOfNode(request) ?? "expectation_failed")),
      connect: (request, socket) => {
        // Node has handed the socket over: nothing else answers its errors.
        socket.on("error", () => socket.destroy())
        runCallback(reject({ remoteAddress: clientAddressOf(peerOf(request)), reason: "connect" }), {
          onExit: endRaw(socket)
        })
      },
      clientError: (error: NodeJS.ErrnoException, socket: Duplex) => {
        const pending = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage
        if (error.code === "ECONNRESET" || !socket.writable || pending?.headersSent === true) {
          socket.destroy()
          return
        }
        const remoteAddress = (socket as Duplex & { remoteAddress?: string }).remoteAddress
        runCallback(reject({ remoteAddress, reason: NodeServer.rejectionReason(error), requestLine: requestLineOf(error) }), {
          onExit: endRaw(socket)
        })
      }
    }
  })

/**
 * The API as a listener of Node http's `request` event alone (see `make` for the others).
 *
 * @since 1.0.0
 * @category constructors
 */
export const makeRequestListener = (
  options?: RequestHandler.Options
): Effect.Effect<(request: Http.IncomingMessage, response: Http.ServerResponse) => void, never, RequestHandler.Requirements> =>
  Effect.map(make(options), (listeners) => listeners.request)
