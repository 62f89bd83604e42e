/**
 * The HTTP+JSON interface (`RequestHandler`) bound to its hosts:
 *
 * - a Node http server: `makeNodeListener`, a `(request, response)` listener
 *   (the standalone server's);
 * - every host of web-standard requests (Node, Hono, Bun, Deno):
 *   `toWebHandler`, a handler `(Request) => Promise<Response>`;
 * - an Effect `HttpServer`: `layer`.
 *
 * Each needs the core services `GuardedPetOperations` and `PetOperations`;
 * each only converts the host's request and response.
 *
 * @since 1.0.0
 */
import * as HttpServer from "@effect/platform/HttpServer"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import type { Stream } from "effect"
import { Effect, Exit, Layer, ManagedRuntime, Option, Runtime } from "effect"
import type * as Http from "node:http"
import { Readable } from "node:stream"
import * as ErrorResponse from "./ErrorResponse.js"
import type * as HttpExchange from "./HttpExchange.js"
import * as RequestBody from "./RequestBody.js"
import * as RequestHandler from "./RequestHandler.js"

/**
 * @since 1.0.0
 * @category models
 */
export type Options = RequestHandler.Options

/**
 * The services the API needs: core's guarded and trusted operations.
 *
 * @since 1.0.0
 * @category models
 */
export type Requirements = RequestHandler.Requirements

/** The head of a response as Node writes it: its headers and its `Content-Length` (no chunked encoding). */
const nodeHeaders = (response: HttpExchange.Response): Http.OutgoingHttpHeaders => {
  const headers: Http.OutgoingHttpHeaders = Object.assign({}, response.headers)
  headers["content-length"] = Buffer.byteLength(response.body)
  return headers
}

/** Writes the response in one go; nothing when the client is gone; a 500 if Node refuses a header. */
const writeNode = (to: Http.ServerResponse, exit: Exit.Exit<HttpExchange.Response>): void => {
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

/**
 * The API as a listener of Node http's `request` event. A request runs on
 * the runtime of the effect that made the listener; its body is read from
 * the Node request directly.
 *
 * @since 1.0.0
 * @category constructors
 */
export const makeNodeListener = (
  options?: Options
): Effect.Effect<(request: Http.IncomingMessage, response: Http.ServerResponse) => void, never, Requirements> =>
  Effect.gen(function*() {
    const handle = yield* RequestHandler.make(options)
    const runCallback = Runtime.runCallback(yield* Effect.runtime<Requirements>())
    return (request, response) => {
      runCallback(
        handle({
          method: request.method ?? "GET",
          url: request.url ?? "/",
          headers: request.headers,
          remoteAddress: request.socket.remoteAddress,
          body: RequestBody.fromNode(request)
        }),
        { onExit: (exit) => writeNode(response, exit) }
      )
    }
  })

const pathAndQuery = (url: string): string => {
  if (url.startsWith("/")) return url
  const parsed = new URL(url)
  return parsed.pathname + parsed.search
}

const fromServerRequest = (request: HttpServerRequest.HttpServerRequest): HttpExchange.Request => {
  const node: unknown = request.source
  return {
    method: request.method,
    url: pathAndQuery(request.url),
    headers: request.headers,
    remoteAddress: Option.getOrUndefined(request.remoteAddress),
    body: node instanceof Readable
      ? RequestBody.fromNode(node)
      : RequestBody.fromStream(request.stream as Stream.Stream<Uint8Array, unknown>)
  }
}

/**
 * The API served by the `HttpServer` of the context.
 *
 * @since 1.0.0
 * @category layers
 */
export const layer = (options?: Options): Layer.Layer<never, never, HttpServer.HttpServer | Requirements> =>
  Layer.unwrapEffect(
    Effect.map(RequestHandler.make(options), (handle) =>
      HttpServer.serve(
        Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) =>
          Effect.map(handle(fromServerRequest(request)), (response) =>
            HttpServerResponse.raw(response.body, { status: response.status, headers: response.headers })))
      ))
  )

/**
 * Who sent a request to the web handler: the peer address of its connection.
 *
 * @since 1.0.0
 * @category models
 */
export interface Client {
  readonly remoteAddress?: string | undefined
}

/**
 * A web-standard handler and the disposal of its services.
 *
 * @since 1.0.0
 * @category models
 */
export interface WebHandler {
  /**
   * Answers a request. Pass the peer address of the connection so that
   * requests without a valid key are limited per client; without it they
   * share one limit.
   */
  readonly handler: (request: Request, client?: Client) => Promise<Response>
  /** Closes the services (the store). */
  readonly dispose: () => Promise<void>
}

/** The web `Response`; a `HEAD` request's has no body. */
const toWeb = (response: HttpExchange.Response, method: string): Response =>
  new Response(method === "HEAD" ? null : response.body, { status: response.status, headers: response.headers })

/**
 * The API as a web-standard handler on `services`, built on the first
 * request (sharing `memoMap` with the host's runtime, when given). If the
 * services cannot be built, every request is answered 500.
 *
 * @since 1.0.0
 * @category constructors
 */
export const toWebHandler = <E>(
  services: Layer.Layer<Requirements, E>,
  options?: Options & { readonly memoMap?: Layer.MemoMap | undefined }
): WebHandler => {
  const runtime = ManagedRuntime.make(services, options?.memoMap)
  let built: Promise<RequestHandler.RequestHandler> | undefined
  return {
    handler: async (request, client) => {
      try {
        built ??= runtime.runPromise(RequestHandler.make(options))
        const handle = await built
        return toWeb(
          await runtime.runPromise(handle({
            method: request.method,
            url: pathAndQuery(request.url),
            headers: Object.fromEntries(request.headers),
            remoteAddress: client?.remoteAddress,
            body: RequestBody.fromWeb(request.body)
          })),
          request.method
        )
      } catch {
        return toWeb(ErrorResponse.internalError, request.method)
      }
    },
    dispose: () => runtime.dispose()
  }
}
