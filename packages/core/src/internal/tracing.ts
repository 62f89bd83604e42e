/**
 * Core's spans, made only when the fiber that builds a service has tracing
 * enabled (`Effect.withTracerEnabled`) and a tracer other than Effect's
 * native one (which exports nothing): otherwise calls pay nothing for them.
 */
import { Effect, FiberRef } from "effect"

/** Wraps an effect in a span named `name` with `attributes`. */
export type Span = (
  name: string,
  attributes?: Record<string, unknown>
) => <A, E, R>(self: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>

const untraced: Span = () => (self) => self

const traced: Span = (name, attributes) => (self) =>
  Effect.withSpan(self, name, { ...(attributes === undefined ? {} : { attributes }), captureStackTrace: false })

/** Effect's native tracer: the one of the default services. */
const nativeTracer = Effect.runSync(Effect.tracer)

/** `Effect.withSpan` when tracing is enabled on the building fiber with an exporting tracer, else the identity. */
export const span: Effect.Effect<Span> = Effect.map(
  Effect.zip(FiberRef.get(FiberRef.currentTracerEnabled), Effect.tracer),
  ([enabled, tracer]) => enabled && tracer !== nativeTracer ? traced : untraced
)
