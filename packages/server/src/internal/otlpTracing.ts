/**
 * The OpenTelemetry SDK of `Tracing`: spans batched to an OTLP/HTTP (JSON) receiver, failing
 * exports logged and their spans counted as dropped (record 0049), one short try at shutdown.
 */
import * as NodeSdk from "@effect/opentelemetry/NodeSdk"
import type { Counter, Meter, MeterProvider } from "@opentelemetry/api"
import { createNoopMeter } from "@opentelemetry/api"
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http"
import type { ReadableSpan, SpanExporter } from "@opentelemetry/sdk-trace-base"
import { BatchSpanProcessor } from "@opentelemetry/sdk-trace-base"
import { Duration, Effect, Layer, Metric, Runtime, Tracer } from "effect"

/**
 * Speed only: Effect's OpenTelemetry tracer without the OpenTelemetry context it sets around every
 * run of every fiber, which no library here reads (record 0032).
 */
const withoutOtelContext = Layer.unwrapEffect(Effect.map(Effect.tracer, (tracer) =>
  Layer.setTracer(Tracer.make({
    span: (name, parent, context, links, startTime, kind, options) =>
      tracer.span(name, parent, context, links, startTime, kind, options),
    context: (f) => f()
  }))))

type ExportResult = Parameters<Parameters<SpanExporter["export"]>[1]>[0]

/** `ExportResultCode.SUCCESS` of `@opentelemetry/core`. */
const success = 0

/** How long an export may take once the server shuts down, retries included: one try (the exporter's first backoff is 0.8 s or more). */
const closingMillis = 500

/** The most the SDK's flush and shutdown may take in all. */
const shutdownTimeout = Duration.seconds(2)

/** The counter of spans dropped, named `name`. */
const droppedCounter = (name: string) => {
  const counter = Metric.counter(name, {
    description: "Spans dropped: in exports that failed, or refused by the full queue of the batch",
    incremental: true
  })
  return (spans: number) => counter.unsafeUpdate(spans, [])
}

/** The endpoint as logged: without credentials or query. */
const endpointOf = (url: string): string => {
  try {
    const parsed = new URL(url)
    return `${parsed.protocol}//${parsed.host}${parsed.pathname}`
  } catch {
    return "(unreadable)"
  }
}

const reasonOf = (error: unknown): string => {
  if (!(error instanceof Error)) return error === undefined ? "unknown" : String(error)
  const status = (error as { readonly code?: unknown }).code
  return typeof status === "number" ? `HTTP ${status} ${error.message}` : error.message
}

/**
 * The OTLP exporter, watched: the spans of a failed export counted as dropped, the first failure
 * after a success (or the start) and the first success after a failure logged. Once `close`d
 * (the layer is released), each export goes to `closing`, an exporter of `closingMillis`, and
 * `shutdown` waits for exports still in flight at most `closingMillis`.
 */
class WatchedExporter implements SpanExporter {
  private failing = false
  private droppedWhileFailing = 0
  private closed = false
  constructor(
    private readonly open: SpanExporter,
    private readonly closing: SpanExporter,
    private readonly log: (effect: Effect.Effect<void>) => void,
    private readonly endpoint: string,
    private readonly drop: (spans: number) => void
  ) {}

  export(spans: Array<ReadableSpan>, resultCallback: (result: ExportResult) => void): void {
    const exporter = this.closed ? this.closing : this.open
    exporter.export(spans, (result) => {
      if (result.code === success) this.succeeded()
      else this.failed(spans.length, result.error)
      resultCallback(result)
    })
  }

  private succeeded() {
    if (!this.failing) return
    this.failing = false
    this.log(Effect.logInfo("Trace export recovered").pipe(
      Effect.annotateLogs({ endpoint: this.endpoint, spansDropped: this.droppedWhileFailing })
    ))
    this.droppedWhileFailing = 0
  }

  private failed(spans: number, error: Error | undefined) {
    this.drop(spans)
    this.droppedWhileFailing += spans
    if (this.failing) return
    this.failing = true
    this.log(Effect.logWarning("Trace export failing: spans are dropped until the collector accepts them").pipe(
      Effect.annotateLogs({ endpoint: this.endpoint, error: reasonOf(error) })
    ))
  }

  /** The queue of the batch is full: `spans` were refused. */
  queueFull(spans: number) {
    this.drop(spans)
    if (this.failing) this.droppedWhileFailing += spans
  }

  close() {
    this.closed = true
  }

  shutdown(): Promise<void> {
    this.closed = true
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, closingMillis)
      void Promise.allSettled([this.open.shutdown(), this.closing.shutdown()]).then(() => {
        clearTimeout(timer)
        resolve()
      })
    })
  }
}

/** The name and attribute of the batch processor's count of spans, and the value for those its full queue refused. */
const processedMetric = "otel.sdk.processor.span.processed"
const refusedByFullQueue = (attributes: Record<string, unknown> | undefined) => attributes?.["error.type"] === "queue_full"

/**
 * A meter for the batch processor's own metrics that only reads its spans refused by a full queue
 * (the processor logs them only through OpenTelemetry's diagnostics, off here).
 */
const queueWatch = (queueFull: (spans: number) => void): MeterProvider => {
  const noop = createNoopMeter()
  const meter: Meter = Object.assign(Object.create(noop) as Meter, {
    createCounter: (name: string, options?: Parameters<Meter["createCounter"]>[1]): Counter =>
      name === processedMetric
        ? { add: (spans, attributes) => refusedByFullQueue(attributes) ? queueFull(spans) : undefined }
        : noop.createCounter(name, options)
  })
  return { getMeter: () => meter }
}

type BatchConfig = NonNullable<ConstructorParameters<typeof BatchSpanProcessor>[1]>

/** The SDK exporting to `url` as `serviceName`, its dropped spans counted by the counter `spansDropped`. @internal */
export const layer = (
  options: { readonly url: string; readonly serviceName: string; readonly spansDropped: string }
) =>
  Layer.unwrapEffect(Effect.map(Effect.runtime<never>(), (runtime) => {
    const exporter = new WatchedExporter(
      new OTLPTraceExporter({ url: options.url }),
      new OTLPTraceExporter({ url: options.url, timeoutMillis: closingMillis }),
      Runtime.runFork(runtime),
      endpointOf(options.url),
      droppedCounter(options.spansDropped)
    )
    // The SDK's own option (`SpanProcessorOptions`), passed on by the env-reading `BatchSpanProcessor`.
    const config: BatchConfig & { readonly selfObsMeterProvider: MeterProvider } = {
      selfObsMeterProvider: queueWatch((spans) => exporter.queueFull(spans))
    }
    const sdk = NodeSdk.layer(() => ({
      resource: { serviceName: options.serviceName },
      spanProcessor: new BatchSpanProcessor(exporter, config),
      shutdownTimeout
    }))
    // Built after the SDK, so released before it flushes: the flush is one short try.
    const closing = Layer.scopedDiscard(Effect.addFinalizer(() => Effect.sync(() => exporter.close())))
    return Layer.provide(Layer.merge(withoutOtelContext, closing), sdk)
  }))
