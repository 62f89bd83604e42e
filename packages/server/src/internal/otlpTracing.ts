/** The OpenTelemetry SDK of `Tracing`: its spans batched to an OTLP/HTTP (JSON) receiver. */
import * as NodeSdk from "@effect/opentelemetry/NodeSdk"
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http"
import { BatchSpanProcessor } from "@opentelemetry/sdk-trace-base"

export const layer = (options: { readonly url: string; readonly serviceName: string }) =>
  NodeSdk.layer(() => ({
    resource: { serviceName: options.serviceName },
    spanProcessor: new BatchSpanProcessor(new OTLPTraceExporter({ url: options.url }))
  }))
