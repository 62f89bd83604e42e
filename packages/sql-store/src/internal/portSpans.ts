/**
 * The spans of a SQL store's ports: each call of a port is a span named `<store>.<port>.<method>`
 * under the caller's, made only when the fiber that builds the ports has tracing enabled
 * (`FiberRef.currentTracerEnabled`, read once); otherwise the ports are left as they are.
 *
 * @internal
 */
import { ApiKeyStore, IdempotencyStore, PetRepository, RateLimitStore } from "@animal-store/core"
import { Context, Effect, FiberRef, Layer } from "effect"
import type { Ports } from "../SqlStore.js"

/** Puts an effect of `port`'s method in the span `<store>.<port>.<method>`. */
const spansOf = (store: string, port: string) => <A, E, R>(method: string, effect: Effect.Effect<A, E, R>) =>
  Effect.withSpan(effect, `${store}.${port}.${method}`, { captureStackTrace: false })

const petRepository = (store: string, port: PetRepository.PetRepositoryService): PetRepository.PetRepositoryService => {
  const span = spansOf(store, "PetRepository")
  return {
    insert: (pet) => span("insert", port.insert(pet)),
    findById: (id) => span("findById", port.findById(id)),
    list: (filter) => span("list", port.list(filter))
  }
}

const apiKeyStore = (store: string, port: ApiKeyStore.ApiKeyStoreService): ApiKeyStore.ApiKeyStoreService => {
  const span = spansOf(store, "ApiKeyStore")
  return {
    insert: (key) => span("insert", port.insert(key)),
    findByDigest: (digest) => span("findByDigest", port.findByDigest(digest)),
    list: span("list", port.list),
    revoke: (id, at) => span("revoke", port.revoke(id, at)),
    rotate: (id, next, until) => span("rotate", port.rotate(id, next, until))
  }
}

const rateLimitStore = (
  store: string,
  port: RateLimitStore.RateLimitStoreService
): RateLimitStore.RateLimitStoreService => {
  const span = spansOf(store, "RateLimitStore")
  return {
    modify: (subject, f) => span("modify", port.modify(subject, f)),
    get: (subject) => span("get", port.get(subject))
  }
}

const idempotencyStore = (
  store: string,
  port: IdempotencyStore.IdempotencyStoreService
): IdempotencyStore.IdempotencyStoreService => {
  const span = spansOf(store, "IdempotencyStore")
  return {
    createPet: (request) => span("createPet", port.createPet(request)),
    purge: (now, limit) => span("purge", port.purge(now, limit))
  }
}

/** The ports of `context`, each call a span of `store`'s. */
const tracedPorts = (store: string, context: Context.Context<Ports>): Context.Context<Ports> =>
  context.pipe(
    Context.add(PetRepository.PetRepository, petRepository(store, Context.get(context, PetRepository.PetRepository))),
    Context.add(ApiKeyStore.ApiKeyStore, apiKeyStore(store, Context.get(context, ApiKeyStore.ApiKeyStore))),
    Context.add(
      RateLimitStore.RateLimitStore,
      rateLimitStore(store, Context.get(context, RateLimitStore.RateLimitStore))
    ),
    Context.add(
      IdempotencyStore.IdempotencyStore,
      idempotencyStore(store, Context.get(context, IdempotencyStore.IdempotencyStore))
    )
  )

/** The ports of `layer` traced as `store`'s, when the building fiber has tracing enabled. */
export const traced = (store: string) => <E, R>(layer: Layer.Layer<Ports, E, R>): Layer.Layer<Ports, E, R> =>
  Layer.unwrapEffect(Effect.map(
    FiberRef.get(FiberRef.currentTracerEnabled),
    (enabled) => enabled ? Layer.map(layer, (context) => tracedPorts(store, context)) : layer
  ))
