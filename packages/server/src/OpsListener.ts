/**
 * The operations listener (record 0048): a second HTTP listener for a private
 * address, serving `/metrics`, `/healthz`, `/readyz` and, when given, the admin
 * API under `/admin/v1`; nothing on it is rate-limited or access-logged.
 *
 * @since 1.0.0
 */
import type * as HttpApp from "@effect/platform/HttpApp"
import type * as HttpServer from "@effect/platform/HttpServer"
import type * as HttpServerError from "@effect/platform/HttpServerError"
import type * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import type { StoreReadiness } from "@animal-store/core"
import type { Layer, Scope } from "effect"
import * as internal from "./internal/opsListener.js"
import type { ServerMetrics } from "./ServerMetrics.js"

/**
 * @since 1.0.0
 * @category models
 */
export interface Options<E = never, R = never> {
  readonly host: string
  readonly port: number
  /** Served under `/admin/v1` (the request's path keeps the prefix). */
  readonly admin?: HttpApp.Default<E, R> | undefined
  /** The HTTP server to serve on, in place of one on `host`:`port` (a worker's); nothing is logged then. */
  readonly server?: Layer.Layer<HttpServer.HttpServer, HttpServerError.ServeError> | undefined
}

/**
 * The path of the admin API on the operations listener.
 *
 * @since 1.0.0
 * @category constants
 */
export const adminPath = "/admin/v1"

/**
 * Listens on `options.host`:`options.port` (or serves on `options.server`) until the scope closes.
 *
 * @since 1.0.0
 * @category layers
 */
export const layer: <E = never, R = never>(
  options: Options<E, R>
) => Layer.Layer<
  never,
  HttpServerError.ServeError,
  ServerMetrics | StoreReadiness.StoreReadiness | Exclude<R, HttpServerRequest.HttpServerRequest | Scope.Scope>
> = internal.layer
