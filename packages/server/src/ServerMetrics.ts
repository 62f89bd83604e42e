/**
 * The standalone server's metrics in a Prometheus registry (`prom-client`):
 * requests by operation, method, route and status (OpenTelemetry HTTP
 * semantic-convention names), idempotent replays, store errors by reason,
 * core's rate-limit decisions by outcome and plan (Effect metrics, read at
 * each scrape), and the process and event-loop metrics.
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
 * `make`; in a worker of `animal-store serve` (its supervisor's), the
 * service's metrics: its requests are counted in a registry of its own,
 * which the supervisor asks for, and its `registry` serializes every
 * worker's (those replaced included: no counter goes backwards), the process
 * metrics of each labelled `worker`, the rest summed.
 *
 * @since 1.0.0
 * @category layers
 */
export const layer: Layer.Layer<ServerMetrics> = Layer.scoped(ServerMetrics, internal.makeService)

/**
 * `layer` in a worker of `serve --workers N`: the service's metrics, as
 * `layer` gives them in any worker.
 *
 * @since 1.0.0
 * @category layers
 */
export const layerWorker: Layer.Layer<ServerMetrics> = Layer.scoped(ServerMetrics, internal.makeWorker)
