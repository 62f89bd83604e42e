/**
 * The HTTP+JSON interface (`RequestHandler`) served by an Effect `HttpServer`
 * (`layer`); Node http hosts have `NodeListeners`, web-standard hosts `WebHandler`.
 *
 * @since 1.0.0
 */
import * as HttpServer from "@effect/platform/HttpServer"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import type { Stream } from "effect"
import { Effect, Layer, Option } from "effect"
import { Readable } from "node:stream"
import * as ClientAddress from "./ClientAddress.js"
import type * as HttpExchange from "./HttpExchange.js"
import { answer, localOriginOf, pathAndQuery } from "./internal/hostRequest.js"
import * as WireRules from "./internal/wireRules.js"
import type { InvalidHttpReason } from "./ProtocolError.js"
import * as RequestBody from "./RequestBody.js"
import * as RequestHandler from "./RequestHandler.js"

const fromServerRequest = (
  request: HttpServerRequest.HttpServerRequest,
  localOrigin: () => string | undefined
): HttpExchange.Request => {
  const node: unknown = request.source
  return {
    method: request.method,
    url: pathAndQuery(request.url),
    headers: request.headers,
    remoteAddress: Option.getOrUndefined(request.remoteAddress),
    localOrigin,
    body: node instanceof Readable
      ? RequestBody.fromNode(node)
      : RequestBody.fromStream(request.stream as Stream.Stream<Uint8Array, unknown>)
  }
}

/** The repeated header of a request of an Effect `HttpServer`: from Node's raw headers, else its merged ones. */
const repeatedOfServerRequest = (request: HttpServerRequest.HttpServerRequest): InvalidHttpReason | undefined => {
  const source = request.source as { readonly rawHeaders?: unknown }
  return Array.isArray(source.rawHeaders)
    ? WireRules.repeatedInRaw(source.rawHeaders as ReadonlyArray<string>)
    : WireRules.repeatedInMerged(request.headers)
}

/**
 * The API served by the `HttpServer` of the context; a repeated `Host`,
 * `Authorization`, `Content-Length` or `Content-Type` is refused (400).
 *
 * @since 1.0.0
 * @category layers
 */
export const layer = (
  options?: RequestHandler.Options
): Layer.Layer<never, never, HttpServer.HttpServer | RequestHandler.Requirements> =>
  Layer.unwrapEffect(
    Effect.gen(function*() {
      const handlers = yield* RequestHandler.makeHandlers(options)
      const clientAddressOf = ClientAddress.make(options?.trustedProxies ?? [])
      const { address } = yield* HttpServer.HttpServer
      const origin = address._tag === "TcpAddress"
        ? localOriginOf({ localAddress: address.hostname, localPort: address.port })
        : () => undefined
      return HttpServer.serve(
        Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => {
          const exchange = fromServerRequest(request, origin)
          return Effect.map(
            answer(handlers, clientAddressOf, exchange, repeatedOfServerRequest(request)),
            (response) =>
              HttpServerResponse.raw(request.method === "HEAD" ? "" : response.body, {
                status: response.status,
                headers: response.headers
              })
          )
        })
      )
    })
  )
