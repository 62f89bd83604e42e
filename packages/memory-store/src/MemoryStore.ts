/**
 * Every port of Animal Store in memory, in one layer: for tests, examples and
 * single-process use where nothing must outlive the process.
 *
 * @since 1.0.0
 */
import type { ApiKeyStore, IdempotencyStore, PetRepository, RateLimitStore } from "@animal-store/core"
import { ListPetsQuery, StoreReadiness } from "@animal-store/core"
import { Layer } from "effect"
import * as MemoryApiKeyStore from "./MemoryApiKeyStore.js"
import * as MemoryIdempotencyStore from "./MemoryIdempotencyStore.js"
import * as MemoryPetRepository from "./MemoryPetRepository.js"
import * as MemoryRateLimitStore from "./MemoryRateLimitStore.js"

/**
 * Every port in memory, with the store's `CursorSecret` and `StoreReadiness`;
 * each build is a new, empty store with a secret of its own.
 *
 * @since 1.0.0
 * @category layers
 */
export const layer: Layer.Layer<
  | PetRepository.PetRepository
  | ApiKeyStore.ApiKeyStore
  | RateLimitStore.RateLimitStore
  | IdempotencyStore.IdempotencyStore
  | ListPetsQuery.CursorSecret
  | StoreReadiness.StoreReadiness
> = Layer.mergeAll(
  MemoryIdempotencyStore.layer.pipe(Layer.provideMerge(MemoryPetRepository.layer)),
  MemoryApiKeyStore.layer,
  MemoryRateLimitStore.layer,
  ListPetsQuery.layerRandomCursorSecret,
  StoreReadiness.layerAlwaysReady
)
