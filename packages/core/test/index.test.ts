import { describe, expect, it } from "@effect/vitest"
import { Context } from "effect"

describe("@animal-store/core", () => {
  // Imported inside the test, so that a module that fails to load fails this test
  // (a static import would fail the whole file before any test ran).
  it("its entry point loads and exports every module by name", async () => {
    const core = await import("../src/index.js")
    expect(Object.keys(core).sort()).toEqual([
      "AccessConfig",
      "AnimalStore",
      "AnimalStoreError",
      "ApiError",
      "ApiKey",
      "ApiKeyAuth",
      "ApiKeyStore",
      "Delivery",
      "DeprecationPolicy",
      "GuardedPetOperations",
      "Idempotency",
      "IdempotencyStore",
      "KeyAdministration",
      "ListPetsQuery",
      "Pet",
      "PetInput",
      "PetOperations",
      "PetRepository",
      "Plan",
      "PlanRateLimiter",
      "RateLimitStore",
      "StoreError",
      "StoreReadiness"
    ])
    expect(core.ListPetsQuery.maxLimit).toBe(100)
    expect(core.Pet.maxNameLength).toBe(255)
  })

  // A host that holds two copies of the package (built and from sources, say)
  // shares one service between them only by these keys.
  it("its services are found under their published keys", async () => {
    const core = await import("../src/index.js")
    /** The key of `tag`, after checking that a service provided under that key is found by `tag`. */
    const keyOf = <I, S>(tag: Context.Tag<I, S>): string => {
      const service = { key: tag.key }
      expect(Context.unsafeGet(Context.make(Context.GenericTag<unknown>(tag.key), service), tag)).toBe(service)
      return tag.key
    }
    const tags = [
      core.AccessConfig.AccessConfig,
      core.ApiKeyAuth.ApiKeyAuth,
      core.ApiKeyStore.ApiKeyStore,
      core.Delivery.Delivery,
      core.DeprecationPolicy.DeprecationPolicy,
      core.GuardedPetOperations.GuardedPetOperations,
      core.IdempotencyStore.IdempotencyStore,
      core.KeyAdministration.KeyAdministration,
      core.ListPetsQuery.CursorSecret,
      core.PetOperations.PetOperations,
      core.PetRepository.PetRepository,
      core.PlanRateLimiter.PlanRateLimiter,
      core.RateLimitStore.RateLimitStore,
      core.StoreReadiness.StoreReadiness
    ] as ReadonlyArray<Context.Tag<unknown, unknown>>
    expect(tags.map(keyOf)).toEqual([
      "@animal-store/core/AccessConfig",
      "@animal-store/core/ApiKeyAuth",
      "@animal-store/core/ApiKeyStore",
      "@animal-store/core/Delivery",
      "@animal-store/core/DeprecationPolicy",
      "@animal-store/core/GuardedPetOperations",
      "@animal-store/core/IdempotencyStore",
      "@animal-store/core/KeyAdministration",
      "@animal-store/core/CursorSecret",
      "@animal-store/core/PetOperations",
      "@animal-store/core/PetRepository",
      "@animal-store/core/PlanRateLimiter",
      "@animal-store/core/RateLimitStore",
      "@animal-store/core/StoreReadiness"
    ])
  })
})
