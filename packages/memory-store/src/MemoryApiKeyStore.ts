/**
 * `ApiKeyStore` in memory: keys by id, and the id of each digest (a rotated key's previous one too).
 *
 * @since 1.0.0
 */
import { ApiKey, ApiKeyStore } from "@animal-store/core"
import { Effect, Layer, Option, Ref } from "effect"

interface Keys {
  readonly byId: ReadonlyMap<string, ApiKey.ApiKey>
  readonly idByDigest: ReadonlyMap<string, string>
}

/**
 * @since 1.0.0
 * @category constructors
 */
export const make: Effect.Effect<ApiKeyStore.ApiKeyStoreService> = Effect.map(
  Ref.make<Keys>({ byId: new Map(), idByDigest: new Map() }),
  (ref) => {
    const update = (id: string, f: (key: ApiKey.ApiKey, keys: Keys) => readonly [ApiKey.ApiKey, Keys]) =>
      Ref.modify(ref, (keys): readonly [Option.Option<ApiKey.ApiKey>, Keys] => {
        const key = keys.byId.get(id)
        if (key === undefined) return [Option.none(), keys]
        const [next, updated] = f(key, keys)
        return [Option.some(next), { ...updated, byId: new Map(updated.byId).set(id, next) }]
      })
    return {
      insert: (key) =>
        Ref.modify(ref, (keys) => {
          const id = keys.idByDigest.get(key.digest)
          if (id !== undefined) return [keys.byId.get(id)!, keys]
          const idByDigest = new Map(keys.idByDigest).set(key.digest, key.id)
          if (Option.isSome(key.previousSecret)) idByDigest.set(key.previousSecret.value.digest, key.id)
          return [key, { byId: new Map(keys.byId).set(key.id, key), idByDigest }]
        }),
      findByDigest: (digest) =>
        Effect.map(Ref.get(ref), (keys) => Option.fromNullable(keys.byId.get(keys.idByDigest.get(digest) ?? ""))),
      list: Effect.map(Ref.get(ref), (keys) =>
        [...keys.byId.values()].sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime())),
      revoke: (id, at) =>
        update(id, (key, keys) =>
          Option.isSome(key.revokedAt) ? [key, keys] : [new ApiKey.ApiKey({ ...key, revokedAt: Option.some(at) }), keys]),
      rotate: (id, next, until) =>
        update(id, (key, keys) => {
          const idByDigest = new Map(keys.idByDigest)
          if (Option.isSome(key.previousSecret)) idByDigest.delete(key.previousSecret.value.digest)
          idByDigest.set(next.digest, id)
          const rotated = new ApiKey.ApiKey({
            ...key,
            digest: next.digest,
            prefix: next.prefix,
            previousSecret: Option.some({ digest: key.digest, prefix: key.prefix, until })
          })
          return [rotated, { ...keys, idByDigest }]
        })
    }
  }
)

/**
 * @since 1.0.0
 * @category layers
 */
export const layer: Layer.Layer<ApiKeyStore.ApiKeyStore> = Layer.effect(ApiKeyStore.ApiKeyStore, make)
