/**
 * The whole in-process Animal Store: an Effect layer for hosts that use
 * Effect, and a Promise facade (`open`, failing with `AnimalStoreError`) for
 * hosts that do not.
 *
 * @since 1.0.0
 */
import { Effect, Layer, Option } from "effect"
import type * as AccessConfig from "./AccessConfig.js"
import type { ApiKey } from "./ApiKey.js"
import * as ApiKeyAuth from "./ApiKeyAuth.js"
import type { ApiKeyStore } from "./ApiKeyStore.js"
import type { IdempotencyStore } from "./IdempotencyStore.js"
import * as Delivery from "./Delivery.js"
import * as DeprecationPolicy from "./DeprecationPolicy.js"
import * as GuardedPetOperations from "./GuardedPetOperations.js"
import * as KeyAdministration from "./KeyAdministration.js"
import type { CursorSecret, PetPage } from "./ListPetsQuery.js"
import type { Pet, PetStatus } from "./Pet.js"
import * as PetOperations from "./PetOperations.js"
import type { PetRepository } from "./PetRepository.js"
import * as PlanRateLimiter from "./PlanRateLimiter.js"
import type { RateLimitStore } from "./RateLimitStore.js"
import type { StoreError } from "./StoreError.js"
import * as StoreReadiness from "./StoreReadiness.js"
import * as facade from "./internal/facade.js"

/**
 * The ports a store provides (every store package provides all of them),
 * among them the store's `CursorSecret`, so that every process sharing a
 * store accepts the listing cursors of the others, across restarts.
 *
 * @since 1.0.0
 * @category models
 */
export type StorePorts = PetRepository | ApiKeyStore | RateLimitStore | IdempotencyStore | CursorSecret

/**
 * The ports `layer` cannot do without. Without an `IdempotencyStore`, a keyed
 * `createPet` is a defect; without a `CursorSecret`, cursors are sealed with
 * a random secret of the process. Every store's layer provides both.
 *
 * @since 1.0.0
 * @category models
 */
export type RequiredPorts = PetRepository | ApiKeyStore | RateLimitStore

/**
 * Every service of the store.
 *
 * @since 1.0.0
 * @category models
 */
export type Services =
  | PetOperations.PetOperations
  | GuardedPetOperations.GuardedPetOperations
  | ApiKeyAuth.ApiKeyAuth
  | KeyAdministration.KeyAdministration
  | PlanRateLimiter.PlanRateLimiter
  | DeprecationPolicy.DeprecationPolicy
  | StoreReadiness.StoreReadiness
  | Delivery.Delivery

/**
 * The services of the store, on a store's ports (`StorePorts`, see
 * `RequiredPorts`) and the access settings; the store's `StoreReadiness` and
 * `Delivery` when it has them, else `StoreReadiness.alwaysReady` and `Delivery.immediate`.
 *
 * @since 1.0.0
 * @category layers
 */
export const layer: Layer.Layer<Services, never, RequiredPorts | AccessConfig.AccessConfig> = GuardedPetOperations.layer
  .pipe(
    Layer.provideMerge(Layer.mergeAll(
      PetOperations.layer,
      ApiKeyAuth.layer,
      KeyAdministration.layer,
      PlanRateLimiter.layer,
      DeprecationPolicy.layer,
      Layer.effect(
        StoreReadiness.StoreReadiness,
        Effect.map(
          Effect.serviceOption(StoreReadiness.StoreReadiness),
          Option.getOrElse(() => StoreReadiness.alwaysReady)
        )
      ),
      Layer.effect(
        Delivery.Delivery,
        Effect.map(Effect.serviceOption(Delivery.Delivery), Option.getOrElse(() => Delivery.immediate))
      )
    ))
  )

/**
 * The query of `listPets` in the facade.
 *
 * @since 1.0.0
 * @category models
 */
export interface ListPetsInput {
  readonly limit?: number
  readonly status?: PetStatus
  readonly cursor?: string
}

/**
 * The body of `createPet` in the facade.
 *
 * @since 1.0.0
 * @category models
 */
export interface CreatePetInput {
  readonly name: string
  readonly categoryId: number
  readonly status?: PetStatus
}

/**
 * The in-process store for hosts that do not use Effect. Trusted calls are
 * for the host's own code; `guarded` calls act for a client, with its
 * credential and address, and return the rate-limit and deprecation metadata.
 *
 * @since 1.0.0
 * @category models
 */
export interface AnimalStore {
  readonly listPets: (query?: ListPetsInput) => Promise<PetPage>
  /** With `options.idempotencyKey`, at most one animal per key in 24 hours (see `PetOperations.CreatePetOptions`). */
  readonly createPet: (pet: CreatePetInput, options?: Pick<PetOperations.CreatePetOptions, "idempotencyKey" | "idempotencyScope">) => Promise<Pet>
  readonly getPet: (id: number) => Promise<Pet>
  readonly guarded: {
    readonly listPets: (
      request: GuardedPetOperations.ClientRequest,
      query?: ListPetsInput
    ) => Promise<GuardedPetOperations.Guarded<PetPage>>
    /** With `options.idempotencyKey`, scoped to the client's API key; a replay has `meta.idempotentReplayed`. */
    readonly createPet: (
      request: GuardedPetOperations.ClientRequest,
      pet: CreatePetInput,
      options?: GuardedPetOperations.GuardedCreatePetOptions
    ) => Promise<GuardedPetOperations.Guarded<Pet>>
    readonly getPet: (
      request: GuardedPetOperations.ClientRequest,
      id: number
    ) => Promise<GuardedPetOperations.Guarded<Pet>>
  }
  readonly keys: {
    /** Issues a key; its secret is returned here once and kept nowhere. */
    readonly issue: (options: ApiKeyAuth.IssueOptions) => Promise<{ readonly key: ApiKey; readonly secret: string }>
    readonly list: () => Promise<ReadonlyArray<ApiKey>>
    readonly revoke: (id: string) => Promise<ApiKey | undefined>
  }
  /** Releases the store (closes its database). */
  readonly close: () => Promise<void>
}

/**
 * What `open` needs: a store's layer (for example `MemoryStore.layer` or
 * `SqliteStore.layer({ filename })`) and optionally access settings.
 *
 * @since 1.0.0
 * @category models
 */
export interface OpenOptions {
  readonly store: Layer.Layer<StorePorts, StoreError>
  readonly access?: Partial<AccessConfig.AccessSettings>
}

/**
 * Opens the store for a host that does not use Effect. Its calls make no
 * spans: its runtime runs with Effect's tracer disabled (record 0065). A call
 * settles once the store says its writes are durable (record 0074).
 *
 * @example
 * ```ts
 * const store = await AnimalStore.open({ store: MemoryStore.layer })
 * await store.createPet({ name: "Rex", categoryId: 1 })
 * const { pets } = await store.listPets({ limit: 5 })
 * await store.close()
 * ```
 *
 * @since 1.0.0
 * @category constructors
 */
export const open = (options: OpenOptions): Promise<AnimalStore> => facade.open(layer, options)
