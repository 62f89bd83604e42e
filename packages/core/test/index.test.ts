import { describe, expect, it } from "@effect/vitest"

describe("@animal-store/core", () => {
  // Imported inside the test, so that a module that fails to load fails this test
  // (a static import would fail the whole file before any test ran).
  it("its entry point loads and exports every module by name", async () => {
    const core = await import("../src/index.js")
    expect(Object.keys(core).sort()).toEqual([
      "AccessConfig",
      "AnimalStore",
      "ApiError",
      "ApiKey",
      "ApiKeyAuth",
      "ApiKeyStore",
      "DeprecationPolicy",
      "GuardedPetOperations",
      "ListPetsQuery",
      "Pet",
      "PetOperations",
      "PetRepository",
      "Plan",
      "PlanRateLimiter",
      "RateLimitStore",
      "StoreError"
    ])
    expect(core.ListPetsQuery.maxLimit).toBe(100)
    expect(core.Pet.maxNameLength).toBe(255)
  })
})
