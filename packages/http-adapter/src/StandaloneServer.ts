/**
 * The standalone server: the HTTP API on a hardened Node http server, on a
 * store (memory or a SQLite file), with keys provisioned at start.
 *
 * Hardening: a header size limit, a timeout for the headers and one for the
 * whole request, and, for requests Node cannot parse (headers too large,
 * timed out, malformed), a 400 `Error` body instead of Node's bare answer.
 * The body limit (64 KiB) is `RequestBody`'s, enforced while streaming.
 *
 * Shutdown (scope closed, e.g. by SIGINT/SIGTERM through `NodeRuntime`):
 * the server stops accepting, requests in flight finish, then the store is
 * closed, in that order.
 *
 * @since 1.0.0
 */
import type { StoreError } from "@animal-store/core"
import { AccessConfig, AnimalStore } from "@animal-store/core"
import { ApiError } from "@animal-store/core"
import type * as HttpServerError from "@effect/platform/HttpServerError"
import * as HttpServer from "@effect/platform/HttpServer"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import { Effect, Layer } from "effect"
import * as Http from "node:http"
import type { Duplex } from "node:stream"
import * as HttpAdapter from "./HttpAdapter.js"
import { jsonContentType } from "./HttpExchange.js"
import * as KeyProvisioning from "./KeyProvisioning.js"
import { basePath } from "./PetsApi.js"
import * as StoreLocation from "./StoreLocation.js"

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
 * 16 KiB of headers, 10 s for them, 30 s for the whole request.
 *
 * @since 1.0.0
 * @category constants
 */
export const defaultLimits: ServerLimits = { maxHeaderSize: 16_384, headersTimeout: 10_000, requestTimeout: 30_000 }

/**
 * @since 1.0.0
 * @category models
 */
export interface Options extends HttpAdapter.Options {
  readonly host: string
  readonly port: number
  readonly store: StoreLocation.StoreLocation
  readonly access?: Partial<AccessConfig.AccessSettings> | undefined
  readonly keys?: ReadonlyArray<KeyProvisioning.Entry> | undefined
  readonly limits?: Partial<ServerLimits> | undefined
}

const clientErrorMessage = (error: NodeJS.ErrnoException): string => {
  switch (error.code) {
    case "HPE_HEADER_OVERFLOW":
      return "The request headers are too large"
    case "ERR_HTTP_REQUEST_TIMEOUT":
      return "The request was not received in time"
    default:
      return "The request is not valid HTTP"
  }
}

const onClientError = (error: NodeJS.ErrnoException, socket: Duplex): void => {
  const pending = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage
  if (error.code === "ECONNRESET" || !socket.writable || pending?.headersSent === true) {
    socket.destroy()
    return
  }
  const body = JSON.stringify(ApiError.makeBody("invalid_request", clientErrorMessage(error)))
  socket.end(
    `HTTP/1.1 400 Bad Request\r\ncontent-type: ${jsonContentType}\r\ncontent-length: ${
      Buffer.byteLength(body)
    }\r\nconnection: close\r\n\r\n${body}`
  )
}

/**
 * A Node http server with the limits, answering unparseable requests with
 * an `Error` body.
 *
 * @since 1.0.0
 * @category constructors
 */
export const createNodeServer = (limits?: Partial<ServerLimits>): Http.Server => {
  const { headersTimeout, maxHeaderSize, requestTimeout } = { ...defaultLimits, ...limits }
  const server = Http.createServer({
    maxHeaderSize,
    headersTimeout,
    requestTimeout,
    connectionsCheckingInterval: Math.min(1_000, headersTimeout)
  })
  server.on("clientError", onClientError)
  return server
}

const logListening = Layer.effectDiscard(
  Effect.flatMap(HttpServer.HttpServer, ({ address }) =>
    Effect.logInfo(
      address._tag === "TcpAddress"
        ? `Animal Store listening on http://${address.hostname}:${address.port}${basePath}`
        : `Animal Store listening on ${address.path}`
    ))
)

/**
 * The services of core on the store at `location`, with the access settings.
 *
 * @since 1.0.0
 * @category layers
 */
export const layerServices = (
  location: StoreLocation.StoreLocation,
  access?: Partial<AccessConfig.AccessSettings>
): Layer.Layer<AnimalStore.Services, StoreError.StoreError> =>
  AnimalStore.layer.pipe(Layer.provide(AccessConfig.layer(access)), Layer.provide(StoreLocation.layer(location)))

/**
 * The API on a Node http server with the limits, listening on `options`'
 * host and port until the scope closes (then it stops accepting and waits
 * for the requests in flight), on the core services of the context.
 *
 * @since 1.0.0
 * @category layers
 */
export const layerHttp = (
  options: Pick<Options, "host" | "port" | "limits" | keyof HttpAdapter.Options>
): Layer.Layer<HttpServer.HttpServer, HttpServerError.ServeError, HttpAdapter.Requirements> =>
  Layer.scoped(
    HttpServer.HttpServer,
    Effect.flatMap(HttpAdapter.makeNodeListener(options), (listener) =>
      NodeHttpServer.make(() => createNodeServer(options.limits).on("request", listener), {
        host: options.host,
        port: options.port
      }))
  )

/**
 * The server with `options`: built in the order store, keys, listening
 * socket; released in the reverse order.
 *
 * @since 1.0.0
 * @category layers
 */
export const layer = (
  options: Options
): Layer.Layer<
  HttpServer.HttpServer | AnimalStore.Services,
  StoreError.StoreError | HttpServerError.ServeError | KeyProvisioning.ProvisioningError
> =>
  logListening.pipe(
    Layer.provideMerge(layerHttp(options)),
    Layer.provide(Layer.effectDiscard(KeyProvisioning.provision(options.keys ?? []))),
    Layer.provideMerge(layerServices(options.store, options.access))
  )
