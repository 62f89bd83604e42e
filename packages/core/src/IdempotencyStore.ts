/**
 * The storage port of idempotent `createPet`: each key's record, written
 * atomically with the animal it created; the rule is `Idempotency.decide`.
 *
 * @since 1.0.0
 */
import type { Effect } from "effect"
import { Context } from "effect"
import type { NewPet, Pet } from "./Pet.js"
import type { StoreError } from "./StoreError.js"

/**
 * What a store keeps for one key of one scope (instants in epoch ms, valid
 * until `expiresAt`). `InProgress` shows only in a store whose atomic step spans an await.
 *
 * @since 1.0.0
 * @category models
 */
export type IdempotencyRecord =
  | {
    readonly _tag: "InProgress"
    readonly fingerprint: string
    readonly expiresAt: number
  }
  | {
    readonly _tag: "Completed"
    readonly fingerprint: string
    readonly expiresAt: number
    readonly pet: Pet
  }

/**
 * What a keyed `createPet` ends with.
 *
 * @since 1.0.0
 * @category models
 */
export type IdempotentCreateOutcome =
  | { readonly _tag: "Created"; readonly pet: Pet }
  | { readonly _tag: "Replayed"; readonly pet: Pet }
  | { readonly _tag: "Reused" }
  | { readonly _tag: "InUse" }

/**
 * What the rule decides: create and record `fingerprint` until `expiresAt`, or end without writing.
 *
 * @since 1.0.0
 * @category models
 */
export type IdempotencyDecision =
  | { readonly _tag: "Create"; readonly fingerprint: string; readonly expiresAt: number }
  | Exclude<IdempotentCreateOutcome, { readonly _tag: "Created" }>

/**
 * One keyed `createPet`, as a store receives it.
 *
 * @since 1.0.0
 * @category models
 */
export interface IdempotentCreate {
  /** Whose key it is (the API key id for a client's request); keys of different scopes are independent. */
  readonly scope: string
  /** The `Idempotency-Key`, already validated. */
  readonly key: string
  /** The animal to create, already validated. */
  readonly pet: NewPet
  /** The current instant (epoch ms): records with `expiresAt <= now` may be purged. */
  readonly now: number
  /** The rule. Pure: a store may run it more than once. */
  readonly decide: (record: IdempotencyRecord | undefined) => IdempotencyDecision
}

/**
 * @since 1.0.0
 * @category models
 */
export interface IdempotencyStoreService {
  /**
   * Runs `decide` on the record of `(scope, key)` and, on `Create`, stores the
   * animal and its record in one atomic step; calls for one key are serialized.
   */
  readonly createPet: (request: IdempotentCreate) => Effect.Effect<IdempotentCreateOutcome, StoreError>
  /** Deletes at most `limit` records expired at `now`, earliest first; answers how many. */
  readonly purge: (now: number, limit: number) => Effect.Effect<number, StoreError>
}

/**
 * @since 1.0.0
 * @category tags
 */
export class IdempotencyStore extends Context.Tag("@animal-store/core/IdempotencyStore")<
  IdempotencyStore,
  IdempotencyStoreService
>() {}
