/**
 * `ApiKeyStore` in memory: keys indexed by digest and by id.
 *
 * @since 1.0.0
 */
import { ApiKey, ApiKeyStore } from "@animal-store/core"
import { Effect, Layer, Option, Ref } from "effect"

interface Keys {
  readonly byDigest: ReadonlyMap<string, ApiKey.ApiKey>
  readonly digestById: ReadonlyMap<string, string>
}

/**
 * @since 1.0.0
 * @category constructors
 */
export const make: Effect.Effect<ApiKeyStore.ApiKeyStoreService> = Effect.map(
  Ref.make<Keys>({ byDigest: new Map(), digestById: new Map() }),
  (ref) => ({
    insert: (key) =>
      Ref.modify(ref, (keys) => {
        const stored = keys.byDigest.get(key.digest)
        if (stored !== undefined) return [stored, keys]
        return [key, {
          byDigest: new Map(keys.byDigest).set(key.digest, key),
          digestById: new Map(keys.digestById).set(key.id, key.digest)
        }]
      }),
    findByDigest: (digest) => Effect.map(Ref.get(ref), (keys) => Option.fromNullable(keys.byDigest.get(digest))),
    list: Effect.map(Ref.get(ref), (keys) =>
      [...keys.byDigest.values()].sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime())),
    revoke: (id, at) =>
      Ref.modify(ref, (keys) => {
        const digest = keys.digestById.get(id)
        const key = digest === undefined ? undefined : keys.byDigest.get(digest)
        if (digest === undefined || key === undefined) return [Option.none(), keys]
        if (Option.isSome(key.revokedAt)) return [Option.some(key), keys]
        const revoked = new ApiKey.ApiKey({ ...key, revokedAt: Option.some(at) })
        return [Option.some(revoked), { ...keys, byDigest: new Map(keys.byDigest).set(digest, revoked) }]
      })
  })
)

/**
 * @since 1.0.0
 * @category layers
 */
export const layer: Layer.Layer<ApiKeyStore.ApiKeyStore> = Layer.effect(ApiKeyStore.ApiKeyStore, make)
