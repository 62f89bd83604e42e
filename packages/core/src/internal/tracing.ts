/**
 * Core's spans, made only when the fiber that builds a service has tracing
 * enabled (`Effect.withTracerEnabled`): a host that exports no traces
 * disables it and then pays nothing per call.
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

/** `Effect.withSpan` when tracing is enabled on the building fiber, else the identity. */
export const span: Effect.Effect<Span> = Effect.map(
  FiberRef.get(FiberRef.currentTracerEnabled),
  (enabled) => enabled ? traced : untraced
)
