/**
 * The storage port for API keys: only digests are stored, and a key is found by its digest (record 0009).
 *
 * @since 1.0.0
 */
import type { Effect, Option } from "effect"
import { Context } from "effect"
import type { ApiKey } from "./ApiKey.js"
import type { StoreError } from "./StoreError.js"

/**
 * @since 1.0.0
 * @category models
 */
export interface ApiKeyStoreService {
  /** Stores a key; a digest already stored leaves the store unchanged and returns the stored key. */
  readonly insert: (key: ApiKey) => Effect.Effect<ApiKey, StoreError>
  /** The key with this digest, or with it as its previous secret's, if any (revoked keys included). */
  readonly findByDigest: (digest: string) => Effect.Effect<Option.Option<ApiKey>, StoreError>
  /** Every key, revoked ones included, oldest first. */
  readonly list: Effect.Effect<ReadonlyArray<ApiKey>, StoreError>
  /** Marks the key revoked at `at` (the first `revokedAt` is kept); `None` when no key has this id. */
  readonly revoke: (id: string, at: Date) => Effect.Effect<Option.Option<ApiKey>, StoreError>
  /** Gives the key a new secret; its current one is kept as its previous secret until `until`. */
  readonly rotate: (
    id: string,
    next: { readonly digest: string; readonly prefix: string },
    until: Date
  ) => Effect.Effect<Option.Option<ApiKey>, StoreError>
}

/**
 * @since 1.0.0
 * @category tags
 */
export class ApiKeyStore extends Context.Tag("@animal-store/core/ApiKeyStore")<ApiKeyStore, ApiKeyStoreService>() {}
