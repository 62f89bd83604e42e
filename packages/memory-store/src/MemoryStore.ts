/**
 * Every port of Animal Store in memory, in one layer: for tests, examples and
 * single-process use where nothing must outlive the process.
 *
 * @since 1.0.0
 */
import type { ApiKeyStore, PetRepository, RateLimitStore } from "@animal-store/core"
import { Layer } from "effect"
import * as MemoryApiKeyStore from "./MemoryApiKeyStore.js"
import * as MemoryPetRepository from "./MemoryPetRepository.js"
import * as MemoryRateLimitStore from "./MemoryRateLimitStore.js"

/**
 * `PetRepository`, `ApiKeyStore` and `RateLimitStore` in memory. Each build of
 * the layer is a new, empty store independent of every other.
 *
 * @since 1.0.0
 * @category layers
 */
export const layer: Layer.Layer<
  PetRepository.PetRepository | ApiKeyStore.ApiKeyStore | RateLimitStore.RateLimitStore
> = Layer.mergeAll(MemoryPetRepository.layer, MemoryApiKeyStore.layer, MemoryRateLimitStore.layer)
