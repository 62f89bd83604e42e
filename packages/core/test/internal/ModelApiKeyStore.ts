/**
 * The reference behaviour of an `ApiKeyStore`: a plain array of keys in
 * insertion order. It is the store under core's own tests of the access rules.
 *
 * @since 1.0.0
 */
import { Effect, Layer, Option, Ref } from "effect"
import { ApiKey } from "../../src/ApiKey.js"
import type { ApiKeyStoreService } from "../../src/ApiKeyStore.js"
import { ApiKeyStore } from "../../src/ApiKeyStore.js"

const isFoundBy = (key: ApiKey, digest: string): boolean =>
  key.digest === digest || Option.exists(key.previousSecret, (previous) => previous.digest === digest)

/**
 * @since 1.0.0
 */
export const make: Effect.Effect<ApiKeyStoreService> = Effect.map(
  Ref.make<ReadonlyArray<ApiKey>>([]),
  (ref) => ({
    insert: (key) =>
      Ref.modify(ref, (keys) => {
        const stored = keys.find((k) => isFoundBy(k, key.digest))
        return stored === undefined ? [key, [...keys, key]] : [stored, keys]
      }),
    findByDigest: (digest) => Effect.map(Ref.get(ref), (keys) => Option.fromNullable(keys.find((k) => isFoundBy(k, digest)))),
    list: Effect.map(Ref.get(ref), (keys) => [...keys].sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime())),
    revoke: (id, at) =>
      Ref.modify(ref, (keys) => {
        const key = keys.find((k) => k.id === id)
        if (key === undefined) return [Option.none(), keys]
        if (Option.isSome(key.revokedAt)) return [Option.some(key), keys]
        const revoked = new ApiKey({ ...key, revokedAt: Option.some(at) })
        return [Option.some(revoked), keys.map((k) => (k.id === id ? revoked : k))]
      }),
    rotate: (id, next, until) =>
      Ref.modify(ref, (keys) => {
        const key = keys.find((k) => k.id === id)
        if (key === undefined) return [Option.none(), keys]
        const rotated = new ApiKey({
          ...key,
          ...next,
          previousSecret: Option.some({ digest: key.digest, prefix: key.prefix, until })
        })
        return [Option.some(rotated), keys.map((k) => (k.id === id ? rotated : k))]
      })
  })
)

/**
 * @since 1.0.0
 */
export const layer: Layer.Layer<ApiKeyStore> = Layer.effect(ApiKeyStore, make)
