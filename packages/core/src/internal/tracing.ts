/**
 * Core's spans, gated by Effect's one tracing switch (`FiberRef.currentTracerEnabled`), read once
 * where a service is built: with it off, calls pay nothing for them (record 0065). A span ends in
 * error only on a defect or a `StoreError`; a refusal of the domain is an answer, named by the
 * span's `error.type`.
 */
import { Cause, Effect, Exit, FiberRef, Option } from "effect"
import { isGeneratorFunction } from "effect/Utils"

/** Wraps an effect in a span named `name` with `attributes`. */
export type Span = (
  name: string,
  attributes?: Record<string, unknown>
) => <A, E, R>(self: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>

/**
 * `Effect.fn(name)` without its stack traces: a generator body runs as `Effect.fnUntraced`, a body
 * that returns an effect as itself; in a span named `name` (ended as `Span` ends it) when traced.
 */
export type Fn = (name: string) => Effect.fn.Gen & Effect.fn.NonGen

const identity = <A, E, R>(self: Effect.Effect<A, E, R>) => self
const untraced: Span = () => identity

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

type Pipeable = (self: any, ...args: Array<any>) => any

/** `body` with `pipeables` applied to its effect, without a step or closure more than they need. */
const fnOf = (body: (...args: Array<any>) => any, pipeables: ReadonlyArray<Pipeable>) => {
  if (isGeneratorFunction(body)) return (Effect.fnUntraced as (...all: Array<unknown>) => unknown)(body, ...pipeables)
  if (pipeables.length === 0) return body
  return (...args: Array<any>) => pipeables.reduce((effect, pipeable) => pipeable(effect, ...args), body(...args))
}

const fnUntraced: Fn = () => ((body: (...args: Array<any>) => any, ...pipeables: Array<Pipeable>) =>
  fnOf(body, pipeables)) as Effect.fn.Gen & Effect.fn.NonGen

const fnTraced: Fn = (name) => ((body: (...args: Array<any>) => any, ...pipeables: Array<Pipeable>) =>
  fnOf(body, [...pipeables, traced(name)])) as Effect.fn.Gen & Effect.fn.NonGen

/** `Effect.withSpan` (ended as above) when the building fiber has tracing enabled, else the identity. */
export const span: Effect.Effect<Span> = Effect.map(
  FiberRef.get(FiberRef.currentTracerEnabled),
  (enabled) => enabled ? traced : untraced
)

/** `Fn` as the building fiber's tracing switch says: its operations in spans when it is on. */
export const fn: Effect.Effect<Fn> = Effect.map(
  FiberRef.get(FiberRef.currentTracerEnabled),
  (enabled) => enabled ? fnTraced : fnUntraced
)
