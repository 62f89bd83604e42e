/**
 * The standalone server's metrics in a prom-client registry (record 0031):
 * requests, idempotent replays, store errors, core's rate-limit decisions, and
 * the process and event-loop metrics.
 *
 * @since 1.0.0
 */
import type { RequestObserver } from "@animal-store/http-adapter"
import { Context, Effect, Layer } from "effect"
import type * as Prometheus from "prom-client"
import * as internal from "./internal/serverMetrics.js"

/**
 * @since 1.0.0
 * @category models
 */
export interface ServerMetricsService {
  /** The registry `GET /metrics` serializes. */
  readonly registry: Prometheus.Registry
  /** Records one answered request: pass it to the adapter as `observe`. */
  readonly observe: RequestObserver.Observer
}

/**
 * @since 1.0.0
 * @category tags
 */
export class ServerMetrics extends Context.Tag("@animal-store/server/ServerMetrics")<
  ServerMetrics,
  ServerMetricsService
>() {}

/**
 * A registry of its own with every metric above.
 *
 * @since 1.0.0
 * @category constructors
 */
export const make: Effect.Effect<ServerMetricsService> = Effect.sync(internal.make)

/**
 * `make`; in a worker of `animal-store serve`, the service's metrics, every
 * worker's (record 0047).
 *
 * @since 1.0.0
 * @category layers
 */
export const layer: Layer.Layer<ServerMetrics> = Layer.scoped(ServerMetrics, internal.makeService)

/**
 * `layer` in a worker of `serve --workers N`.
 *
 * @since 1.0.0
 * @category layers
 */
export const layerWorker: Layer.Layer<ServerMetrics> = Layer.scoped(ServerMetrics, internal.makeWorker)
