import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer, Redacted, TestClock } from "effect"
import * as fc from "effect/FastCheck"
import * as AccessConfig from "../src/AccessConfig.js"
import * as AnimalStore from "../src/AnimalStore.js"
import * as ApiKeyAuth from "../src/ApiKeyAuth.js"
import { ApiKeyStore } from "../src/ApiKeyStore.js"
import * as DeprecationPolicy from "../src/DeprecationPolicy.js"
import type { ClientRequest, Guarded, GuardedFailure, KeylessAdmission } from "../src/GuardedPetOperations.js"
import * as GuardedPetOperations from "../src/GuardedPetOperations.js"
import type { OperationName } from "../src/PetOperations.js"
import { PetRepository } from "../src/PetRepository.js"
import { RateLimitStore } from "../src/RateLimitStore.js"
import { StoreError } from "../src/StoreError.js"
import * as ModelApiKeyStore from "./internal/ModelApiKeyStore.js"
import * as ModelPetRepository from "../src/testing/internal/ModelPetRepository.js"
import * as ModelRateLimitStore from "./internal/ModelRateLimitStore.js"

const sunset = Date.parse("2030-12-05T00:00:00Z")
const getPetDeprecation = DeprecationPolicy.make(DeprecationPolicy.deprecations).forOperation("getPet")!

const guardedLayer = (
  settings: Partial<AccessConfig.AccessSettings> = {},
  stores: {
    readonly keys?: Layer.Layer<ApiKeyStore>
    readonly limits?: Layer.Layer<RateLimitStore>
    readonly pets?: Layer.Layer<PetRepository>
  } = {}
) =>
  AnimalStore.layer.pipe(
    Layer.provideMerge(Layer.mergeAll(
      stores.keys ?? ModelApiKeyStore.layer,
      stores.limits ?? ModelRateLimitStore.layer,
      stores.pets ?? ModelPetRepository.layer(),
      AccessConfig.layer(settings)
    )),
    // Untraced, as the facade and the server without OTLP: errors are compared by identity.
    Layer.provideMerge(Layer.setTracerEnabled(false))
  )

const storeError = new StoreError({ reason: "Unavailable", message: "the store is down" })

const listPets = (request: ClientRequest, query: unknown = {}) =>
  Effect.flatMap(GuardedPetOperations.GuardedPetOperations, (guarded) => guarded.listPets(request, query))
const createPet = (request: ClientRequest, body: unknown = { name: "Rex", categoryId: 1 }) =>
  Effect.flatMap(GuardedPetOperations.GuardedPetOperations, (guarded) => guarded.createPet(request, body))
const getPet = (request: ClientRequest, id: unknown = 1) =>
  Effect.flatMap(GuardedPetOperations.GuardedPetOperations, (guarded) => guarded.getPet(request, id))

const call = (
  operation: OperationName,
  request: ClientRequest,
  input?: unknown
): Effect.Effect<Guarded<unknown>, GuardedFailure, GuardedPetOperations.GuardedPetOperations> =>
  operation === "listPets"
    ? listPets(request, input)
    : operation === "createPet"
    ? createPet(request, input)
    : getPet(request, input)

/** The failure of a call, or of an admission when `operation` is undefined. */
const failure = (operation: OperationName | undefined, request: ClientRequest, input?: unknown) =>
  Effect.flip<unknown, GuardedFailure, GuardedPetOperations.GuardedPetOperations>(
    operation === undefined
      ? Effect.flatMap(GuardedPetOperations.GuardedPetOperations, (guarded) => guarded.admitKeyless(request))
      : call(operation, request, input)
  )

const issue = (options: ApiKeyAuth.IssueOptions = { plan: "free" }) =>
  Effect.flatMap(ApiKeyAuth.ApiKeyAuth, (auth) => auth.issue(options)).pipe(
    Effect.map(({ key, secret }) => ({ key, credential: Redacted.value(secret) }))
  )

const errorTag = (failure: GuardedFailure) => failure.error._tag

const operations: ReadonlyArray<OperationName> = ["listPets", "createPet", "getPet"]

describe("GuardedPetOperations", () => {
  it.effect("without a valid key an operation is 401 with the address decision, and 429 past the address limit", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(Date.UTC(2026, 0, 1, 12, 0, 10))
      const revoked = yield* issue()
      yield* Effect.flatMap(ApiKeyAuth.ApiKeyAuth, (auth) => auth.revoke(revoked.key.id))
      const credentials = [undefined, "Basic abc", "ask_live_unknownunknownunknown", revoked.credential, undefined]
      const reasons = ["missing", "malformed", "unknown", "revoked"]
      for (const [i, credential] of credentials.entries()) {
        const operation = operations[i % 3]!
        const refused = yield* failure(operation, { credential, clientAddress: "198.51.100.7" })
        expect(refused).toBeInstanceOf(GuardedPetOperations.GuardedFailure)
        expect(refused._tag).toBe("GuardedFailure")
        const error = refused.error
        if (i < 4) {
          expect(error._tag === "Unauthorized" && error.reason).toBe(reasons[i])
        } else {
          expect(error._tag === "RateLimited" && error.retryAfter).toBe(50)
        }
        expect(refused.meta).toEqual({
          rateLimit: {
            outcome: i < 4 ? "Accepted" : "RateLimited",
            reported: refused.meta.rateLimit?.windows[0],
            windows: [{
              name: "minute",
              seconds: 60,
              limit: 4,
              remaining: Math.max(0, 4 - i - 1),
              reset: Date.UTC(2026, 0, 1, 12, 1) / 1000
            }],
            retryAfter: i < 4 ? undefined : 50
          },
          deprecation: operation === "getPet" ? getPetDeprecation : undefined
        })
      }
      const elsewhere = yield* failure("listPets", { credential: undefined, clientAddress: "198.51.100.8" })
      expect(errorTag(elsewhere)).toBe("Unauthorized")
      yield* TestClock.adjust(50_000)
      const later = yield* failure("listPets", { credential: undefined, clientAddress: "198.51.100.7" })
      expect(errorTag(later)).toBe("Unauthorized")
    }).pipe(Effect.provide(guardedLayer({ anonymousPerMinute: 4 }))))

  it.effect("with a valid key each operation runs and carries the key decision; getPet carries its deprecation", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(Date.UTC(2026, 0, 1, 12, 0, 0))
      const { credential } = yield* issue({ plan: "enterprise", limits: { perMinute: 10, perDay: 20 } })
      const request = { credential, clientAddress: "203.0.113.1" }
      const created = yield* createPet(request, { name: " Rex ", categoryId: 3 })
      expect(created.value).toMatchObject({ name: "Rex", categoryId: 3, status: "available" })
      expect(created.meta.deprecation).toBeUndefined()
      expect(created.meta.rateLimit?.outcome).toBe("Accepted")
      expect(created.meta.rateLimit?.windows.map((w) => w.remaining)).toEqual([9, 19])

      const listed = yield* listPets(request)
      expect(listed.value).toEqual({ pets: [created.value], nextCursor: undefined })
      expect(listed.meta.deprecation).toBeUndefined()

      const got = yield* getPet(request, created.value.id)
      expect(got.value).toEqual(created.value)
      expect(got.meta.deprecation).toEqual(getPetDeprecation)
      expect(got.meta.rateLimit?.reported).toMatchObject({ name: "minute", limit: 10, remaining: 7 })

      const missing = yield* failure("getPet", request, 999)
      expect(errorTag(missing)).toBe("PetNotFound")
      expect(missing.meta.deprecation).toEqual(getPetDeprecation)
      const invalid = yield* failure("createPet", request, { name: "", categoryId: 0, id: 4 })
      expect(errorTag(invalid)).toBe("InvalidRequest")
      expect(invalid.meta.rateLimit?.windows.map((w) => w.remaining)).toEqual([5, 15])
    }).pipe(Effect.provide(guardedLayer())))

  it.effect("from the sunset instant on getPet is gone, counted, with its headers; other operations go on", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(sunset - 1)
      const { credential } = yield* issue()
      const request = { credential, clientAddress: "203.0.113.1" }
      const pet = yield* createPet(request)
      expect((yield* getPet(request, pet.value.id)).value).toEqual(pet.value)
      yield* TestClock.adjust(1)
      const gone = yield* failure("getPet", request, pet.value.id)
      expect(gone.error._tag === "Gone" && gone.error.sunset.getTime()).toBe(sunset)
      expect(gone.meta.deprecation).toEqual(getPetDeprecation)
      expect(gone.meta.rateLimit?.windows.map((w) => w.remaining)).toEqual([59, 999])
      expect((yield* listPets(request)).value.pets).toEqual([pet.value])
    }).pipe(Effect.provide(guardedLayer())))

  it.effect("the ban and the rate limit come before the deprecation, and a refused request reaches no operation", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(sunset + 1_000)
      const { credential } = yield* issue({ plan: "enterprise", limits: { perMinute: 1, perDay: 100 } })
      const request = { credential, clientAddress: "203.0.113.1" }
      yield* createPet(request)
      const limited = yield* failure("getPet", request)
      expect(errorTag(limited)).toBe("RateLimited")
      expect(limited.meta.deprecation).toEqual(getPetDeprecation)
      expect(errorTag(yield* failure("createPet", request))).toBe("RateLimited")
      const banned = yield* failure("getPet", request)
      expect(banned.error._tag === "ApiKeyBanned" && banned.error.retryAfter).toBe(120)
      expect(banned.meta.rateLimit?.outcome).toBe("Banned")
      expect(errorTag(yield* failure(undefined, request))).toBe("ApiKeyBanned")
      const pets = yield* Effect.flatMap(PetRepository, (repository) => repository.list({ limit: 100 }))
      expect(pets.length).toBe(1)
      yield* TestClock.adjust(120_000)
      expect(errorTag(yield* failure("getPet", request))).toBe("Gone")
    }).pipe(Effect.provide(guardedLayer({ banAfter: 2, banSeconds: 120 }))))

  it.effect("a keyless admission counts against a valid key, else against the address, and never asks for a key", () =>
    Effect.gen(function*() {
      const guarded = yield* GuardedPetOperations.GuardedPetOperations
      yield* TestClock.setTime(Date.UTC(2026, 0, 1, 12, 0, 0))
      const { credential, key } = yield* issue()
      const withKey = yield* guarded.admitKeyless({ credential, clientAddress: "203.0.113.1" })
      expect(withKey.principal?.keyId).toBe(key.id)
      expect(withKey.meta.rateLimit?.windows.map((w) => w.remaining)).toEqual([59, 999])
      expect(withKey.meta.deprecation).toBeUndefined()
      for (const credential of [undefined, "garbage"]) {
        const anonymous = yield* guarded.admitKeyless({ credential, clientAddress: "203.0.113.1" })
        expect(anonymous.principal).toBeUndefined()
        expect(anonymous.meta.rateLimit?.reported).toMatchObject({ limit: 2 })
      }
      const limited = yield* failure(undefined, { credential: undefined, clientAddress: "203.0.113.1" })
      expect(errorTag(limited)).toBe("RateLimited")
      const operation = yield* guarded.admit({ credential, clientAddress: "203.0.113.1" }, "getPet")
      expect(operation.meta.deprecation).toEqual(getPetDeprecation)
      expect(operation.meta.rateLimit?.windows.map((w) => w.remaining)).toEqual([58, 998])
    }).pipe(Effect.provide(guardedLayer({ anonymousPerMinute: 2 }))))

  it.effect("a store failure is a GuardedFailure carrying the StoreError and the metadata known", () =>
    Effect.gen(function*() {
      const keysDownLayer = guardedLayer({}, {
        keys: Layer.succeed(ApiKeyStore, {
          insert: () => Effect.fail(storeError),
          findByDigest: () => Effect.fail(storeError),
          list: Effect.fail(storeError),
          revoke: () => Effect.fail(storeError),
          rotate: () => Effect.fail(storeError)
        })
      })
      const keysDown = yield* failure("getPet", { credential: "ask_live_0123456789abcdefXYZ", clientAddress: "a" }).pipe(
        Effect.provide(keysDownLayer)
      )
      expect(keysDown.error).toBe(storeError)
      expect(keysDown.meta).toEqual({ rateLimit: undefined, deprecation: getPetDeprecation })
      // A keyless admission does not fall back to the address when the key cannot be looked up.
      const keysDownKeyless = yield* failure(undefined, { credential: "ask_live_0123456789abcdefXYZ", clientAddress: "a" })
        .pipe(Effect.provide(keysDownLayer))
      expect(keysDownKeyless.error).toBe(storeError)
      expect(keysDownKeyless.meta).toEqual({ rateLimit: undefined, deprecation: undefined })

      // Keys' limits are in the store; addresses' are in memory, counted while the store fails.
      const limitsDownLayer = guardedLayer({}, {
        limits: Layer.succeed(RateLimitStore, { modify: () => Effect.fail(storeError), get: () => Effect.fail(storeError) })
      })
      const limitsDown = yield* Effect.gen(function*() {
        const { credential } = yield* issue()
        return yield* failure("getPet", { credential, clientAddress: "a" })
      }).pipe(Effect.provide(limitsDownLayer))
      expect(limitsDown.error).toBe(storeError)
      expect(limitsDown.meta).toEqual({ rateLimit: undefined, deprecation: getPetDeprecation })
      const limitsDownKeyless = yield* failure("getPet", { credential: undefined, clientAddress: "a" }).pipe(
        Effect.provide(limitsDownLayer)
      )
      expect(errorTag(limitsDownKeyless)).toBe("Unauthorized")
      expect(limitsDownKeyless.meta.rateLimit?.outcome).toBe("Accepted")
      expect(limitsDownKeyless.meta.deprecation).toEqual(getPetDeprecation)

      const petsDown = yield* Effect.gen(function*() {
        const { credential } = yield* issue()
        return yield* failure("listPets", { credential, clientAddress: "a" })
      }).pipe(
        Effect.provide(guardedLayer({}, {
          pets: Layer.succeed(PetRepository, {
            insert: () => Effect.fail(storeError),
            findById: () => Effect.fail(storeError),
            list: () => Effect.fail(storeError)
          })
        }))
      )
      expect(petsDown.error).toBe(storeError)
      expect(petsDown.meta.rateLimit?.outcome).toBe("Accepted")
    }))

  it.effect.prop(
    "every result carries the rate-limit decision, and the deprecation exactly on getPet",
    {
      start: fc.integer({ min: sunset - 5 * 60_000, max: sunset + 60_000 }),
      requests: fc.array(
        fc.record({
          who: fc.constantFrom("key", "none", "unknown", "other address"),
          operation: fc.constantFrom<OperationName | undefined>("listPets", "createPet", "getPet", undefined),
          gap: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 90_000 }))
        }),
        { maxLength: 25 }
      )
    },
    ({ requests, start }) =>
      Effect.gen(function*() {
        const guarded = yield* GuardedPetOperations.GuardedPetOperations
        yield* TestClock.setTime(start)
        const { credential, key } = yield* issue({ plan: "enterprise", limits: { perMinute: 3, perDay: 12 } })
        let created = 0
        for (const { gap, operation, who } of requests) {
          if (gap > 0) yield* TestClock.adjust(gap)
          const request: ClientRequest = {
            credential: who === "key" ? credential : who === "unknown" ? "ask_live_0000000000000000" : undefined,
            clientAddress: who === "other address" ? "192.0.2.2" : "192.0.2.1"
          }
          const result = yield* Effect.either<Guarded<unknown> | KeylessAdmission, GuardedFailure, GuardedPetOperations.GuardedPetOperations>(
            operation === undefined
              ? guarded.admitKeyless(request)
              : call(operation, request)
          )
          const meta = result._tag === "Right" ? result.right.meta : result.left.meta
          expect(meta.deprecation).toEqual(operation === "getPet" ? getPetDeprecation : undefined)
          expect(meta.rateLimit?.windows.length).toBe(who === "key" ? 2 : 1)
          const now = yield* TestClock.currentTimeMillis
          if (result._tag === "Left") {
            const tag = errorTag(result.left)
            const refusedByLimiter = meta.rateLimit?.outcome !== "Accepted"
            expect(["RateLimited", "ApiKeyBanned"].includes(tag)).toBe(refusedByLimiter)
            if (!refusedByLimiter) {
              expect(tag).toBe(
                who !== "key"
                  ? "Unauthorized"
                  : operation === "getPet"
                  ? now >= sunset ? "Gone" : created === 0 ? "PetNotFound" : "unexpected"
                  : "unexpected"
              )
            }
          } else {
            expect(meta.rateLimit?.outcome).toBe("Accepted")
            if (operation !== undefined) expect(who).toBe("key")
            if (operation === "getPet") expect(now < sunset && created > 0).toBe(true)
            if (operation === undefined && who === "key") {
              expect((result.right as KeylessAdmission).principal?.keyId).toBe(key.id)
            }
            if (operation === "createPet") created += 1
          }
        }
        const pets = yield* Effect.flatMap(PetRepository, (repository) => repository.list({ limit: 100 }))
        expect(pets.length).toBe(created)
      }).pipe(Effect.provide(guardedLayer({ anonymousPerMinute: 2, banAfter: 3, banSeconds: 60 }))),
    { fastCheck: { numRuns: 40 } }
  )
})
