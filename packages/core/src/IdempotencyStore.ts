/**
 * The storage port of idempotent `createPet`: the records of the
 * `Idempotency-Key`s, written atomically with the animal they created. Its
 * `createPet` runs a pure decision (`Idempotency.decide`, the rule, in core)
 * on the record of one key and, when it says so, stores the animal and the
 * record together; stores only store, atomically.
 *
 * @since 1.0.0
 */
import type { Effect } from "effect"
import { Context } from "effect"
import type { NewPet, Pet } from "./Pet.js"
import type { StoreError } from "./StoreError.js"

/**
 * What a store keeps for one key of one scope. Instants are Unix epoch
 * milliseconds; the record counts until `expiresAt` (excluded).
 *
 * - `InProgress`: claimed by a request whose animal is being written. Only a
 *   store whose atomic step spans an await shows it (the memory store, while
 *   its `PetRepository` inserts); a store that writes the animal and the
 *   record in one synchronous transaction (SQLite) never does.
 * - `Completed`: the animal the first request created, replayed as it was.
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
 * What the rule decides from the record of a key: create the animal and store
 * a record of `fingerprint` until `expiresAt`, or end without writing
 * anything (replay, reused, in use).
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
   * Runs `decide` on the record of `(scope, key)` as stored (`undefined` when
   * there is none; an expired record is given as it is, the rule knows it
   * has expired). On `Create`, stores the animal in the store's
   * `PetRepository` and the `Completed` record (replacing the old one) as one
   * atomic step, and answers `Created`; the animal and its record are both
   * stored or neither is. Otherwise answers the decision and writes nothing.
   * Concurrent calls for one `(scope, key)`, in this process or another
   * sharing the store, are serialized: each one's `decide` sees the record
   * the previous one left (`InProgress` while a store shows its claim).
   * A call that creates also purges a few expired records (never a scan).
   */
  readonly createPet: (request: IdempotentCreate) => Effect.Effect<IdempotentCreateOutcome, StoreError>
  /**
   * Deletes at most `limit` records with `expiresAt <= now`, the earliest
   * expiries first, through an index on the expiry; answers how many.
   */
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
