/**
 * Core's spans, made only when the fiber that builds a service has tracing
 * enabled (`Effect.withTracerEnabled`) and a tracer other than Effect's
 * native one (which exports nothing): otherwise calls pay nothing for them.
 * A span ends in error only on a defect or a `StoreError`; a refusal of the
 * domain (401, 404, 429...) is an answer, named by the span's `error.type`.
 */
import { Cause, Effect, Exit, FiberRef, Option } from "effect"

/** Wraps an effect in a span named `name` with `attributes`. */
export type Span = (
  name: string,
  attributes?: Record<string, unknown>
) => <A, E, R>(self: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>

const untraced: Span = () => (self) => self

/** The tag of the domain's refusal `cause` holds (through a `GuardedFailure`), if it holds one and nothing worse. */
const refusalOf = (cause: Cause.Cause<unknown>): string | undefined => {
  const failure = Cause.failureOption(cause)
  if (Option.isNone(failure) || Cause.isDie(cause)) return undefined
  const error = failure.value as { readonly _tag?: unknown; readonly error?: { readonly _tag?: unknown } }
  const tag = error._tag === "GuardedFailure" ? error.error?._tag : error._tag
  return typeof tag === "string" && tag !== "StoreError" ? tag : undefined
}

/** `exit` to end a span with: a refusal ends it well, annotated, and fails after it; anything else as it is. */
const ending = <A, E>(exit: Exit.Exit<A, E>): Effect.Effect<Exit.Exit<A, E>, E> => {
  const refusal = Exit.isFailure(exit) ? refusalOf(exit.cause) : undefined
  return refusal === undefined
    ? Effect.map(exit, (value): Exit.Exit<A, E> => Exit.succeed(value))
    : Effect.as(Effect.annotateCurrentSpan("error.type", refusal), exit)
}

const traced: Span = (name, attributes) => (self) =>
  Effect.flatten(Effect.withSpan(Effect.flatMap(Effect.exit(self), ending), name, {
    ...(attributes === undefined ? {} : { attributes }),
    captureStackTrace: false
  }))

/** Effect's native tracer: the one of the default services. */
const nativeTracer = Effect.runSync(Effect.tracer)

/** `Effect.withSpan` when tracing is enabled on the building fiber with an exporting tracer, else the identity. */
export const span: Effect.Effect<Span> = Effect.map(
  Effect.zip(FiberRef.get(FiberRef.currentTracerEnabled), Effect.tracer),
  ([enabled, tracer]) => enabled && tracer !== nativeTracer ? traced : untraced
)
