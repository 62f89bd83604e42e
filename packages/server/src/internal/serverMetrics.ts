/**
 * The metrics of `ServerMetrics` on prom-client: the adapter's observer feeds
 * them, and collectors read core's and the adapter's Effect counters at each scrape.
 */
import { PlanRateLimiter } from "@animal-store/core"
import type { RequestObserver } from "@animal-store/http-adapter"
import { ErrorResponse } from "@animal-store/http-adapter"
import type { Scope } from "effect"
import { Effect, Metric } from "effect"
import * as Prometheus from "prom-client"
import { spansDroppedMetric } from "../Tracing.js"
import * as LockWaitsMetric from "./lockWaitsMetric.js"
import * as Supervision from "./supervision.js"
import * as WorkerMetrics from "./workerMetrics.js"

/** The boundaries advised by the OpenTelemetry HTTP semantic conventions for `http.server.request.duration`. */
const durationBuckets = [0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10]

/** The Prometheus name OpenTelemetry gives a counter named `name` (`a.b` is `a_b_total`). */
const counterName = (name: string) => `${name.replace(/\./g, "_")}_total`

/** Methods outside the HTTP standard's are `_OTHER`, as the conventions say: the label set stays bounded. */
const knownMethods = new Set(["CONNECT", "DELETE", "GET", "HEAD", "OPTIONS", "PATCH", "POST", "PUT", "TRACE"])

export const make = () => {
  const registry = new Prometheus.Registry()
  Prometheus.collectDefaultMetrics({ register: registry })
  LockWaitsMetric.register(registry)
  const duration = new Prometheus.Histogram({
    name: "http_server_request_duration_seconds",
    help: "Duration of HTTP server requests (http.server.request.duration); its count is the number of requests",
    labelNames: ["http_request_method", "http_response_status_code", "http_route", "animal_store_operation"],
    buckets: durationBuckets,
    registers: [registry]
  })
  const replays = new Prometheus.Counter({
    name: "animal_store_idempotent_replays_total",
    help: "createPet requests answered with the animal of a first request with the same Idempotency-Key",
    labelNames: [],
    registers: [registry]
  })
  new Prometheus.Counter({
    name: counterName(ErrorResponse.storeErrorsMetric),
    help: "Requests answered with a store error, by reason",
    labelNames: ["reason"],
    registers: [registry],
    collect() {
      this.reset()
      for (const { metricKey, metricState } of Metric.unsafeSnapshot()) {
        if (metricKey.name !== ErrorResponse.storeErrorsMetric || !("count" in metricState)) continue
        const reason = metricKey.tags.find((tag) => tag.key === "reason")?.value ?? ""
        this.inc({ reason }, Number(metricState.count))
      }
    }
  })
  new Prometheus.Counter({
    name: counterName(PlanRateLimiter.decisionsMetric),
    help: "Rate-limit decisions by outcome (accepted, rate_limited, banned) and plan (anonymous: by client address)",
    labelNames: ["outcome", "plan"],
    registers: [registry],
    collect() {
      this.reset()
      for (const { metricKey, metricState } of Metric.unsafeSnapshot()) {
        if (metricKey.name !== PlanRateLimiter.decisionsMetric || !("count" in metricState)) continue
        const labels: Record<string, string> = {}
        for (const tag of metricKey.tags) labels[tag.key] = tag.value
        this.inc(labels, Number(metricState.count))
      }
    }
  })
  new Prometheus.Counter({
    name: counterName(ErrorResponse.faultsMetric),
    help: "Store faults, counted when each starts (each is logged when it starts and when it ends)",
    registers: [registry],
    collect() {
      this.reset()
      for (const { metricKey, metricState } of Metric.unsafeSnapshot()) {
        if (metricKey.name === ErrorResponse.faultsMetric && "count" in metricState) this.inc(Number(metricState.count))
      }
    }
  })
  new Prometheus.Counter({
    name: counterName(spansDroppedMetric),
    help: "Trace spans dropped: in exports that failed, or refused by the exporter's full queue",
    registers: [registry],
    collect() {
      this.reset()
      for (const { metricKey, metricState } of Metric.unsafeSnapshot()) {
        if (metricKey.name === spansDroppedMetric && "count" in metricState) this.inc(Number(metricState.count))
      }
    }
  })
  /** One child per label set, made on its first request. */
  const children = new Map<string, Prometheus.Histogram.Internal<string>>()
  const observe: RequestObserver.Observer = (observation) => {
    const method = knownMethods.has(observation.method) ? observation.method : "_OTHER"
    const key = `${method} ${observation.status} ${observation.operation} ${observation.route}`
    let child = children.get(key)
    if (child === undefined) {
      child = duration.labels({
        http_request_method: method,
        http_response_status_code: observation.status,
        http_route: observation.route ?? "",
        animal_store_operation: observation.operation
      })
      children.set(key, child)
    }
    child.observe(observation.durationMs / 1000)
    if (observation.response.headers["idempotent-replayed"] === "true") replays.inc()
  }
  return { registry, observe }
}

/** How long a scrape waits for the supervisor's answer. */
const scrapeLimitMillis = 5_000

/**
 * In a worker of `serve`'s supervisor: `make()`, whose own registry answers the
 * supervisor and whose scraped registry is the service's (record 0047).
 */
export const makeWorker: Effect.Effect<
  { readonly registry: Prometheus.Registry; readonly observe: RequestObserver.Observer },
  never,
  Scope.Scope
> = Effect.suspend(() => {
  const own = make()
  let taken = 0
  const reply = (id: number) => {
    const head = { _tag: "AnimalStore/MetricsReply", id, taken: ++taken } as const
    return own.registry.getMetricsAsJSON().then((metrics) => ({ ...head, metrics }))
  }
  Supervision.receive("AnimalStore/Metrics", (message) => {
    void reply(message.id).then(Supervision.tell, () => {})
  })
  class ServiceRegistry extends Prometheus.Registry {
    override metrics(): Promise<string> {
      return Supervision.askMetrics(scrapeLimitMillis).then((service) => {
        if (service === undefined) throw new Error("the supervisor did not send the workers' metrics in time")
        const lists = service.workers.map(({ metrics, worker }) =>
          WorkerMetrics.labelled(worker, metrics as ReadonlyArray<WorkerMetrics.MetricJson>)
        )
        return Prometheus.AggregatorRegistry.aggregate([...lists, [WorkerMetrics.serviceStart(service.startTimeSeconds)]])
          .metrics()
      })
    }
  }
  return Effect.as(
    Effect.addFinalizer(() => Effect.promise(() => reply(0).then(Supervision.send, () => {}))),
    { registry: new ServiceRegistry(), observe: own.observe }
  )
})

/** `make()` in a process of its own; `makeWorker` in a worker of `serve`'s supervisor. */
export const makeService: Effect.Effect<
  { readonly registry: Prometheus.Registry; readonly observe: RequestObserver.Observer },
  never,
  Scope.Scope
> = Effect.suspend(() => Supervision.workerOf() === undefined ? Effect.sync(make) : makeWorker)
