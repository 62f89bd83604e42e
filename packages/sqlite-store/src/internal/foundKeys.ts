/**
 * For speed only: a kept key answers without reading and decoding its row (`bench/ports.ts`).
 * Kept while `PRAGMA data_version`, read at each lookup (a held one's in the turn's transaction, record 0075),
 * says no other connection has committed since: a key revoked elsewhere or here is refused from the next lookup on.
 *
 * @internal
 */
import type { ApiKey } from "@animal-store/core"
import { SqlRow } from "@animal-store/sql-store"
import { Option } from "effect"
import type { Statements } from "./database.js"

/** The most keys kept at once; a process serves few keys, so going over forgets them all. */
const maxKeys = 10_000

const dataVersionSql = "PRAGMA data_version"
const isVersion = SqlRow.tuple(SqlRow.isNumber)

/** The kept keys of one connection. */
export interface FoundKeys {
  /** The kept key of `digest`, checking first that no other connection has committed since it was read. */
  readonly get: (statements: Statements, digest: string) => Option.Some<ApiKey.ApiKey> | undefined
  /** The count of `forget`s: a key read before one is not kept. */
  readonly generation: () => number
  /** Keeps `key`, found by `digest` after a `get` and at `generation`, unless forgotten since. */
  readonly keep: (digest: string, key: ApiKey.ApiKey, generation: number) => Option.Some<ApiKey.ApiKey>
  /** Forgets the key of `digest`, written by this store. */
  readonly forget: (digest: string) => void
}

/** @internal */
export const make = (): FoundKeys => {
  const found = new Map<string, Option.Some<ApiKey.ApiKey>>()
  let readAt: number | undefined
  let forgotten = 0
  const check = (statements: Statements): void => {
    const version = statements.values(isVersion, dataVersionSql)[0]![0]
    if (version !== readAt) {
      found.clear()
      readAt = version
    }
  }
  return {
    get: (statements, digest) => {
      check(statements)
      return found.get(digest)
    },
    generation: () => forgotten,
    keep: (digest, key, generation) => {
      const some = Option.some(key) as Option.Some<ApiKey.ApiKey>
      if (generation !== forgotten) return some
      if (found.size >= maxKeys) found.clear()
      found.set(digest, some)
      return some
    },
    forget: (digest) => {
      forgotten++
      found.delete(digest)
    }
  }
}
