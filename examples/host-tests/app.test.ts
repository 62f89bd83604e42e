/**
 * The host application's test suite: the same application layer, with the
 * memory store instead of the SQLite file. No file, no port; each `layer`
 * block gets a fresh, empty store, and TestClock moves time.
 */
import { ApiKeyAuth, GuardedPetOperations } from "@animal-store/core"
import { MemoryStore } from "@animal-store/memory-store"
import { describe, expect, it, layer } from "@effect/vitest"
import { Effect, ManagedRuntime, Redacted, TestClock } from "effect"
import { appLayer, partnerApi, Shelter } from "./app.js"

const testApp = appLayer(MemoryStore.layer)

layer(testApp)("the shelter, on the memory store", (it) => {
  it.effect("takes animals in and reports them by status", () =>
    Effect.gen(function*() {
      const shelter = yield* Shelter
      yield* shelter.intake("Rex", 1)
      yield* shelter.intake("  Tom ", 2)
      expect(yield* shelter.summary).toEqual({ available: 2, pending: 0, sold: 0 })
    }))

  it.effect("refuses an animal without a name with Animal Store's InvalidRequest", () =>
    Effect.gen(function*() {
      const shelter = yield* Shelter
      const error = yield* Effect.flip(shelter.intake("   ", 1))
      expect(error._tag === "InvalidRequest" && error.code).toBe("invalid_request")
    }))

  it.effect("sees getPet gone from its sunset on: TestClock moves the store's time", () =>
    Effect.gen(function*() {
      const { secret } = yield* (yield* ApiKeyAuth.ApiKeyAuth).issue({ plan: "free" })
      const client = { credential: Redacted.value(secret), clientAddress: "192.0.2.1" }
      const guarded = yield* GuardedPetOperations.GuardedPetOperations
      const pet = yield* (yield* Shelter).intake("Nemo", 3)
      expect((yield* guarded.getPet(client, pet.id)).value.name).toBe("Nemo")
      yield* TestClock.setTime(Date.parse("2030-12-05T00:00:00Z"))
      const failure = yield* Effect.flip(guarded.getPet(client, pet.id))
      expect(failure.error._tag).toBe("Gone")
    }))
})

describe("the partner API, on the memory store", () => {
  it.scoped("serves the animals the shelter took in", () =>
    Effect.gen(function*() {
      const runtime = yield* Effect.acquireRelease(
        Effect.sync(() => ManagedRuntime.make(testApp)),
        (runtime) => Effect.promise(() => runtime.dispose())
      )
      const api = partnerApi(testApp, runtime.memoMap)
      yield* Effect.addFinalizer(() => Effect.promise(() => api.dispose()))
      const secret = yield* Effect.promise(() =>
        runtime.runPromise(
          Effect.gen(function*() {
            yield* (yield* Shelter).intake("Rex", 1)
            const { secret } = yield* (yield* ApiKeyAuth.ApiKeyAuth).issue({ plan: "free" })
            return Redacted.value(secret)
          })
        )
      )
      const get = (path: string) =>
        Effect.promise(() => api.handler(new Request(`http://shelter${path}`, { headers: { authorization: `Bearer ${secret}` } })))
      const listed = yield* get("/v1/pets")
      expect(yield* Effect.promise(() => listed.json())).toEqual([{ id: 1, name: "Rex", categoryId: 1, status: "available" }])
      expect(listed.headers.get("x-ratelimit-remaining")).toBe("59")
      const one = yield* get("/v1/pets/1")
      expect(one.headers.get("sunset")).toBe("Thu, 05 Dec 2030 00:00:00 GMT")
    }))
})
