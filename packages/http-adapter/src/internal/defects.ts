/**
 * The answer to a defect (a bug): logged with its cause, answered 500 without
 * detail; an interruption stays one. And the fiber's clock and span, read in one step.
 *
 * @internal
 */
import type { Tracer } from "effect"
import { Cause, Clock, Context, Effect } from "effect"
import * as ErrorResponse from "../ErrorResponse.js"
import type * as HttpExchange from "../HttpExchange.js"

/** The response to the defect `cause`. @internal */
export const defect = (cause: Cause.Cause<unknown>): Effect.Effect<HttpExchange.Response> =>
  Cause.isInterruptedOnly(cause)
    ? Effect.interrupt
    : Effect.as(Effect.logError("Unexpected failure while handling a request", cause), ErrorResponse.internalError)

/** `f` with the clock and the current span of the fiber that runs it, in one step of that fiber. @internal */
export const onFiber = <A>(
  f: (clock: Clock.Clock, span: Tracer.AnySpan | undefined) => Effect.Effect<A>
): Effect.Effect<A> =>
  Effect.withFiberRuntime((fiber) => f(Context.get(fiber.currentDefaultServices, Clock.Clock), fiber.currentSpan))
