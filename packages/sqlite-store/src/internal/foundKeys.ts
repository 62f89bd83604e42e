/**
 * For speed only: a kept key answers without a statement (findByDigest 9 µs -> 1 µs; `bench/ports.ts`).
 * Kept while SQLite's `PRAGMA data_version`, read at most once a turn, says no other connection has
 * committed: a key revoked elsewhere is refused from the next turn, one revoked here at once.
 *
 * @internal
 */
import type { ApiKey } from "@animal-store/core"
import type { SqlError } from "@effect/sql/SqlError"
import { Effect, Option } from "effect"
import type { Connection } from "./groupCommit.js"
import { values } from "./groupCommit.js"

/** The most keys kept at once; a process serves few keys, so going over forgets them all. */
const maxKeys = 10_000

const dataVersionSql = "PRAGMA data_version"

/** The kept keys of one connection. */
export interface FoundKeys {
  /** The kept key of `digest`, checking first, once a turn, that no other connection has committed since it was read. */
  readonly get: (connection: Connection, digest: string) => Effect.Effect<Option.Some<ApiKey.ApiKey> | undefined, SqlError>
  /** The count of `forget`s: a key read before one is not kept. */
  readonly generation: () => number
  /** Keeps `key`, read after a `get` and at `generation`, unless forgotten since. */
  readonly keep: (key: ApiKey.ApiKey, generation: number) => Option.Some<ApiKey.ApiKey>
  /** Forgets the key of `digest`, written by this store. */
  readonly forget: (digest: string) => void
}

/** @internal */
export const make = (): FoundKeys => {
  const found = new Map<string, Option.Some<ApiKey.ApiKey>>()
  let readAt: number | undefined
  let checked = false
  let forgotten = 0
  const check = (connection: Connection): Effect.Effect<void, SqlError> => {
    if (checked) return Effect.void
    return Effect.map(values<readonly [number]>(connection, dataVersionSql), (rows) => {
      checked = true
      setImmediate(() => (checked = false))
      const version = rows[0]![0]
      if (version !== readAt) {
        found.clear()
        readAt = version
      }
    })
  }
  return {
    get: (connection, digest) => Effect.map(Effect.suspend(() => check(connection)), () => found.get(digest)),
    generation: () => forgotten,
    keep: (key, generation) => {
      const some = Option.some(key) as Option.Some<ApiKey.ApiKey>
      if (generation !== forgotten) return some
      if (found.size >= maxKeys) found.clear()
      found.set(key.digest, some)
      return some
    },
    forget: (digest) => {
      forgotten++
      found.delete(digest)
    }
  }
}
