/**
 * The standalone server's traces and its tracing switch: OpenTelemetry over OTLP/HTTP when
 * `OTEL_EXPORTER_OTLP_ENDPOINT` (or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`) is set, as service
 * `OTEL_SERVICE_NAME`; otherwise Effect's tracer is disabled, and neither the adapter nor core
 * makes a span (records 0032, 0049, 0065).
 *
 * @since 1.0.0
 */
import { Config, Effect, FiberRef, Layer } from "effect"

/**
 * The environment variables read, by name.
 *
 * @since 1.0.0
 * @category models
 */
export type Env = Readonly<Record<string, string | undefined>>

/**
 * The default service name.
 *
 * @since 1.0.0
 * @category constants
 */
export const defaultServiceName = "animal-store"

/**
 * The Effect counter of spans dropped: in exports that failed, or refused
 * by the exporter's full queue (`animal_store_trace_spans_dropped_total`).
 *
 * @since 1.0.0
 * @category constants
 */
export const spansDroppedMetric = "animal_store.trace.spans_dropped"

/**
 * Where spans go: the OTLP/HTTP traces address of `env`, `undefined` when
 * tracing is off.
 *
 * @since 1.0.0
 * @category constructors
 */
export const tracesUrl = (env: Env): string | undefined => {
  const traces = env["OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"]
  if (traces !== undefined && traces !== "") return traces
  const endpoint = env["OTEL_EXPORTER_OTLP_ENDPOINT"]
  if (endpoint === undefined || endpoint === "") return undefined
  return `${endpoint.replace(/\/+$/, "")}/v1/traces`
}

/**
 * `self` traced as `env` says: with the OpenTelemetry SDK exporting its
 * spans (flushed when the layer is released, after `self`), or with tracing
 * disabled. The SDK is loaded only when it is used.
 *
 * @since 1.0.0
 * @category layers
 */
export const provide = (env: Env) => <A, E, R>(self: Layer.Layer<A, E, R>): Layer.Layer<A, E, R> => {
  const url = tracesUrl(env)
  if (url === undefined) return Layer.locally(self, FiberRef.currentTracerEnabled, false)
  const serviceName = env["OTEL_SERVICE_NAME"] || defaultServiceName
  const sdk = Layer.unwrapEffect(
    Effect.map(Effect.promise(() => import("./internal/otlpTracing.js")), (otlp) =>
      otlp.layer({ url, serviceName, spansDropped: spansDroppedMetric }))
  )
  return Layer.provide(self, sdk)
}

const variables = ["OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "OTEL_SERVICE_NAME"] as const

/**
 * `provide` with the variables read from the `ConfigProvider` of the context.
 *
 * @since 1.0.0
 * @category layers
 */
export const provideConfig = <A, E, R>(self: Layer.Layer<A, E, R>): Layer.Layer<A, E, R> =>
  Layer.unwrapEffect(
    Effect.map(
      Effect.orDie(Config.all(variables.map((name) => Config.withDefault(Config.string(name), "")))),
      (values) => provide(Object.fromEntries(variables.map((name, i) => [name, values[i]])))(self)
    )
  )
