/**
 * For speed only: a kept key answers without a round trip. Kept at most `keyCacheTtl`; a revocation
 * through any store on the database `NOTIFY`s the others, which forget every kept key at once.
 *
 * @internal
 */
import type { ApiKey } from "@animal-store/core"
import type { Clock } from "effect"
import { Option } from "effect"

/** The most keys kept at once; a process serves few keys, so going over forgets them all. */
const maxKeys = 10_000

/** The channel revocations are announced on; the payload is the store's schema. */
export const channel = "animal_store_api_keys"

/** The kept keys of one store. */
export interface FoundKeys {
  /** The kept key of `digest`, unless its time is up. */
  readonly get: (digest: string) => Option.Some<ApiKey.ApiKey> | undefined
  /** The count of `forget`s: a key read before one is not kept. */
  readonly generation: () => number
  /** Keeps `key`, read at `generation`, unless keys were forgotten since. */
  readonly keep: (digest: string, key: ApiKey.ApiKey, generation: number) => Option.Some<ApiKey.ApiKey>
  /** Forgets every kept key. */
  readonly forget: () => void
}

/** @internal */
export const make = (clock: Clock.Clock, ttlMillis: number): FoundKeys => {
  const found = new Map<string, { readonly key: Option.Some<ApiKey.ApiKey>; readonly until: number }>()
  let forgotten = 0
  return {
    get: (digest) => {
      const entry = found.get(digest)
      if (entry === undefined) return undefined
      if (clock.unsafeCurrentTimeMillis() < entry.until) return entry.key
      found.delete(digest)
      return undefined
    },
    generation: () => forgotten,
    keep: (digest, key, generation) => {
      const some = Option.some(key) as Option.Some<ApiKey.ApiKey>
      if (generation !== forgotten || ttlMillis <= 0) return some
      if (found.size >= maxKeys) found.clear()
      found.set(digest, { key: some, until: clock.unsafeCurrentTimeMillis() + ttlMillis })
      return some
    },
    forget: () => {
      forgotten++
      found.clear()
    }
  }
}
