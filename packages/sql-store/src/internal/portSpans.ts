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

/** `effect` in the span `name`. */
const spanned = <A, E, R>(effect: Effect.Effect<A, E, R>, name: string): Effect.Effect<A, E, R> =>
  Effect.withSpan(effect, name, { captureStackTrace: false })

/** The span name of `method` of `port` in `store`. */
const nameOf = (store: string, port: string) => (method: string): string => `${store}.${port}.${method}`

const petRepository = (store: string, port: PetRepository.PetRepositoryService): PetRepository.PetRepositoryService => {
  const name = nameOf(store, "PetRepository")
  const names = { insert: name("insert"), findById: name("findById"), list: name("list") }
  return {
    insert: (pet) => spanned(port.insert(pet), names.insert),
    findById: (id) => spanned(port.findById(id), names.findById),
    list: (filter) => spanned(port.list(filter), names.list)
  }
}

const apiKeyStore = (store: string, port: ApiKeyStore.ApiKeyStoreService): ApiKeyStore.ApiKeyStoreService => {
  const name = nameOf(store, "ApiKeyStore")
  const names = {
    insert: name("insert"),
    findByDigest: name("findByDigest"),
    list: name("list"),
    revoke: name("revoke"),
    rotate: name("rotate")
  }
  return {
    insert: (key) => spanned(port.insert(key), names.insert),
    findByDigest: (digest) => spanned(port.findByDigest(digest), names.findByDigest),
    list: spanned(port.list, names.list),
    revoke: (id, at) => spanned(port.revoke(id, at), names.revoke),
    rotate: (id, next, until) => spanned(port.rotate(id, next, until), names.rotate)
  }
}

const rateLimitStore = (
  store: string,
  port: RateLimitStore.RateLimitStoreService
): RateLimitStore.RateLimitStoreService => {
  const name = nameOf(store, "RateLimitStore")
  const names = { modify: name("modify"), get: name("get") }
  return {
    modify: (subject, f) => spanned(port.modify(subject, f), names.modify),
    get: (subject) => spanned(port.get(subject), names.get)
  }
}

const idempotencyStore = (
  store: string,
  port: IdempotencyStore.IdempotencyStoreService
): IdempotencyStore.IdempotencyStoreService => {
  const name = nameOf(store, "IdempotencyStore")
  const names = { createPet: name("createPet"), purge: name("purge") }
  return {
    createPet: (request) => spanned(port.createPet(request), names.createPet),
    purge: (now, limit) => spanned(port.purge(now, limit), names.purge)
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
