/** The OpenTelemetry SDK of `Tracing`: its spans batched to an OTLP/HTTP (JSON) receiver. */
import * as NodeSdk from "@effect/opentelemetry/NodeSdk"
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http"
import { BatchSpanProcessor } from "@opentelemetry/sdk-trace-base"
import { Effect, Layer, Tracer } from "effect"

/**
 * Speed only: Effect's OpenTelemetry tracer without the OpenTelemetry context it sets around every run
 * of every fiber (no library here reads it). With it, and with refusals rendered as errors, a traced
 * request cost 6.4x the CPU of an untraced one; 3.7x without both (`pnpm bench --only telemetry`).
 */
const withoutOtelContext = Layer.unwrapEffect(Effect.map(Effect.tracer, (tracer) =>
  Layer.setTracer(Tracer.make({
    span: (name, parent, context, links, startTime, kind, options) =>
      tracer.span(name, parent, context, links, startTime, kind, options),
    context: (f) => f()
  }))))

/** @internal */
export const layer = (options: { readonly url: string; readonly serviceName: string }) =>
  Layer.provide(
    withoutOtelContext,
    NodeSdk.layer(() => ({
      resource: { serviceName: options.serviceName },
      spanProcessor: new BatchSpanProcessor(new OTLPTraceExporter({ url: options.url }))
    }))
  )
