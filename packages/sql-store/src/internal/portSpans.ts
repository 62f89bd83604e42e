/**
 * The spans of a SQL store's ports: each call of a port is a span named
 * `<store>.<port>.<method>` under the caller's, made only when the fiber that
 * builds the ports has tracing enabled with a tracer other than Effect's
 * native one (which exports nothing); otherwise the ports are left as they are.
 *
 * @internal
 */
import { ApiKeyStore, IdempotencyStore, PetRepository, RateLimitStore } from "@animal-store/core"
import type { Context } from "effect"
import { Context as C, Effect, FiberRef, Layer } from "effect"

const nativeTracer = Effect.runSync(Effect.tracer)

const tags = [PetRepository.PetRepository, ApiKeyStore.ApiKeyStore, RateLimitStore.RateLimitStore, IdempotencyStore.IdempotencyStore]

/** `service` with every effect it gives wrapped in a span `<prefix>.<member>`. */
const tracedService = <S extends object>(prefix: string, service: S): S => {
  const spanned = <A, E, R>(effect: Effect.Effect<A, E, R>, member: string) =>
    Effect.withSpan(effect, `${prefix}.${member}`, { captureStackTrace: false })
  const traced: Record<string, unknown> = {}
  for (const [member, value] of Object.entries(service)) {
    traced[member] = Effect.isEffect(value)
      ? spanned(value, member)
      : typeof value === "function"
      ? (...args: ReadonlyArray<unknown>) => {
        const result = (value as (...args: ReadonlyArray<unknown>) => unknown)(...args)
        return Effect.isEffect(result) ? spanned(result, member) : result
      }
      : value
  }
  return traced as S
}

/** The ports of `layer` traced as `store`'s, when the building fiber traces with an exporting tracer. */
export const traced = (store: string) => <ROut, E, R>(layer: Layer.Layer<ROut, E, R>): Layer.Layer<ROut, E, R> =>
  Layer.unwrapEffect(Effect.map(
    Effect.zip(FiberRef.get(FiberRef.currentTracerEnabled), Effect.tracer),
    ([enabled, tracer]) =>
      !enabled || tracer === nativeTracer ? layer : Layer.map(layer, (context: Context.Context<ROut>) => {
        let out = context
        for (const tag of tags) {
          const service = C.getOption(context as Context.Context<unknown>, tag as C.Tag<unknown, object>)
          if (service._tag === "Some") {
            const port = tag.key.slice(tag.key.lastIndexOf("/") + 1)
            out = C.add(out, tag as C.Tag<unknown, object>, tracedService(`${store}.${port}`, service.value)) as typeof out
          }
        }
        return out
      })
  ))
