import type { Pet } from "@animal-store/core"
import { Idempotency, ListPetsQuery, PetRepository } from "@animal-store/core"
import { MemoryApiKeyStore, MemoryIdempotencyStore, MemoryPetRepository, MemoryRateLimitStore } from "@animal-store/memory-store"
import { describe, expect, it } from "@effect/vitest"
import { Deferred, Effect, Fiber, Layer, TestClock } from "effect"
import { bearer, json, portsOf, start, storeKinds } from "./support/TestServer.js"
import type { TestServer } from "./support/TestServer.js"

/** `POST /v1/pets` with a body (an object, or a JSON text as is) and an optional `Idempotency-Key`. */
const post = (api: TestServer, secret: string, body: unknown, key?: string, init: Record<string, string> = {}) =>
  api.request("/v1/pets", {
    method: "POST",
    headers: {
      "content-type": "application/json",
      ...bearer(secret),
      ...(key === undefined ? {} : { "idempotency-key": key }),
      ...init
    },
    body: typeof body === "string" ? body : JSON.stringify(body)
  })

const listed = (api: TestServer, secret: string) =>
  Effect.flatMap(api.request("/v1/pets?limit=100", { headers: bearer(secret) }), json) as Effect.Effect<Array<Pet.Pet>>

const expectCode = (response: Response, status: number, code: string) =>
  Effect.gen(function*() {
    expect(response.status).toBe(status)
    const body = yield* json(response)
    expect(body).toMatchObject({ code, status })
    return body
  })

describe.each(storeKinds)("Idempotency-Key on POST /v1/pets, %s store", (kind) => {
  const server = (options?: Omit<Parameters<typeof start>[0], "ports">) =>
    Effect.flatMap(portsOf(kind), (ports) => start({ ports, ...options }))

  it.scoped("a retry with the same key and the same JSON value replays the first 201 and creates nothing", () =>
    Effect.gen(function*() {
      const api = yield* server()
      const { secret } = yield* api.issue("pro")
      const first = yield* post(api, secret, `{"name": " Rex", "categoryId": 7}`, "order-1")
      expect(first.status).toBe(201)
      expect(first.headers.get("idempotent-replayed")).toBeNull()
      const created = yield* json(first)
      expect(created).toEqual({ id: 1, name: "Rex", categoryId: 7, status: "available" })
      const remaining = Number(first.headers.get("x-ratelimit-remaining"))
      // The same JSON value: members in another order, other spacing, 7.0 for 7.
      const retry = yield* post(api, secret, `{ "categoryId" : 7.0,"name":" Rex" }`, "order-1")
      expect(retry.status).toBe(201)
      expect(retry.headers.get("idempotent-replayed")).toBe("true")
      expect(retry.headers.get("location")).toBe("/v1/pets/1")
      expect(yield* json(retry)).toEqual(created)
      // A replay counts against the rate limits like any accepted request.
      expect(Number(retry.headers.get("x-ratelimit-remaining"))).toBe(remaining - 1)
      expect(yield* listed(api, secret)).toEqual([created])
      // Without the header, requests work as before.
      const plain = yield* post(api, secret, { name: "Rex", categoryId: 7 })
      expect(plain.status).toBe(201)
      expect(plain.headers.get("idempotent-replayed")).toBeNull()
      expect((yield* json(plain)).id).toBe(2)
    }))

  it.scoped("50 concurrent requests with one key create one animal", () =>
    Effect.gen(function*() {
      const api = yield* server()
      const { secret } = yield* api.issue("pro")
      const responses = yield* Effect.all(
        Array.from({ length: 50 }, () => post(api, secret, { name: "Burst", categoryId: 1 }, "burst")),
        { concurrency: "unbounded" }
      )
      const statuses = responses.map((response) => response.status)
      expect(statuses.every((status) => status === 201 || status === 409)).toBe(true)
      const created = responses.filter((r) => r.status === 201)
      const bodies = yield* Effect.forEach(created, json)
      expect(new Set(bodies.map((body) => body.id))).toEqual(new Set([1]))
      expect(created.filter((r) => r.headers.get("idempotent-replayed") === null).length).toBe(1)
      for (const response of responses.filter((r) => r.status === 409)) {
        yield* expectCode(response, 409, "idempotency_key_in_use")
      }
      expect((yield* listed(api, secret)).length).toBe(1)
    }))

  it.scoped("the same key with another body is 422 idempotency_key_reused, and creates nothing", () =>
    Effect.gen(function*() {
      const api = yield* server()
      const { secret } = yield* api.issue("pro")
      expect((yield* post(api, secret, { name: "Rex", categoryId: 1 }, "k")).status).toBe(201)
      for (
        const other of [
          { name: "Tom", categoryId: 1 },
          { name: " Rex", categoryId: 1 }, // another JSON value, though stored alike
          { name: "Rex", categoryId: 1, status: "available" }
        ]
      ) {
        const reused = yield* expectCode(yield* post(api, secret, other, "k"), 422, "idempotency_key_reused")
        expect(reused.message).toContain("Idempotency-Key")
      }
      expect((yield* listed(api, secret)).length).toBe(1)
    }))

  it.scoped("a key is remembered for 24 hours from the first request, then creates anew", () =>
    Effect.gen(function*() {
      const api = yield* server()
      const { secret } = yield* api.issue("pro")
      yield* TestClock.setTime(Date.UTC(2030, 0, 1))
      const first = yield* json(yield* post(api, secret, { name: "Rex", categoryId: 1 }, "daily"))
      yield* TestClock.adjust(Idempotency.retentionMillis - 1)
      const late = yield* post(api, secret, { name: "Rex", categoryId: 1 }, "daily")
      expect(late.headers.get("idempotent-replayed")).toBe("true")
      expect(yield* json(late)).toEqual(first)
      yield* TestClock.adjust(1)
      const anew = yield* post(api, secret, { name: "Rex", categoryId: 1 }, "daily")
      expect(anew.status).toBe(201)
      expect(anew.headers.get("idempotent-replayed")).toBeNull()
      expect((yield* json(anew)).id).toBe(first.id + 1)
    }))

  it.scoped("keys are scoped to the API key: another key's use of the same key is independent", () =>
    Effect.gen(function*() {
      const api = yield* server()
      const alice = yield* api.issue("pro")
      const bob = yield* api.issue("pro")
      const a = yield* post(api, alice.secret, { name: "Rex", categoryId: 1 }, "shared")
      const b = yield* post(api, bob.secret, { name: "Tom", categoryId: 2 }, "shared")
      expect([a.status, b.status]).toEqual([201, 201])
      expect(b.headers.get("idempotent-replayed")).toBeNull()
      expect((yield* json(b)).id).toBe((yield* json(a)).id + 1)
      const bobAgain = yield* post(api, bob.secret, { name: "Tom", categoryId: 2 }, "shared")
      expect(bobAgain.headers.get("idempotent-replayed")).toBe("true")
    }))

  it.scoped("a malformed key is 400; requests refused before they ran leave no record", () =>
    Effect.gen(function*() {
      const api = yield* server({ access: { banAfter: 100 } })
      const { secret } = yield* api.issue("enterprise", { limits: { perMinute: 30, perDay: 1000 } })
      for (const key of ["", " ", "two words", "é", "x".repeat(256)]) {
        const refused = yield* expectCode(yield* post(api, secret, { name: "Rex", categoryId: 1 }, key), 400, "invalid_request")
        expect(refused.details).toEqual([{ path: "Idempotency-Key", message: expect.stringContaining("visible ASCII") }])
      }
      expect((yield* post(api, secret, { name: "Rex", categoryId: 1 }, "~!x".repeat(85))).status).toBe(201)
      // 400 (invalid body, malformed JSON), 415, 413, 401: then the key is free for another body.
      yield* expectCode(yield* post(api, secret, { name: "", categoryId: 1 }, "fresh"), 400, "invalid_request")
      yield* expectCode(yield* post(api, secret, `{"name":`, "fresh"), 400, "invalid_request")
      yield* expectCode(yield* post(api, secret, { name: "Rex", categoryId: 1 }, "fresh", { "content-type": "text/plain" }), 415, "unsupported_media_type")
      yield* expectCode(yield* post(api, secret, { name: "x".repeat(70_000), categoryId: 1 }, "fresh"), 413, "payload_too_large")
      yield* expectCode(yield* post(api, "ask_live_unknownunknownunknown", { name: "Rex", categoryId: 1 }, "fresh"), 401, "unauthorized")
      const ran = yield* post(api, secret, { name: "Tom", categoryId: 2 }, "fresh")
      expect(ran.status).toBe(201)
      expect(ran.headers.get("idempotent-replayed")).toBeNull()
      // 429: the minute is used up; the refused request leaves no record either.
      yield* TestClock.setTime(Date.UTC(2030, 0, 1, 0, 0, 0))
      for (let i = 0; i < 30; i++) yield* api.request("/v1/pets", { headers: bearer(secret) })
      yield* expectCode(yield* post(api, secret, { name: "Max", categoryId: 3 }, "later"), 429, "rate_limited")
      yield* TestClock.adjust("1 minute")
      const after = yield* post(api, secret, { name: "Leo", categoryId: 4 }, "later")
      expect(after.status).toBe(201)
      expect(after.headers.get("idempotent-replayed")).toBeNull()
    }))
})

describe("Idempotency-Key while the first request is being processed", () => {
  it.scoped("a request with the same key gets 409 idempotency_key_in_use; after the first ends, its 201 is replayed", () =>
    Effect.gen(function*() {
      const entered = yield* Deferred.make<void>()
      const gate = yield* Deferred.make<void>()
      // The memory store on a repository whose first insert waits for the gate.
      const repository = Layer.effect(
        PetRepository.PetRepository,
        Effect.map(MemoryPetRepository.make, (inner) => ({
          ...inner,
          insert: (pet: Pet.NewPet) =>
            Effect.zipRight(
              Effect.zipRight(Deferred.succeed(entered, undefined), Deferred.await(gate)),
              inner.insert(pet)
            )
        }))
      )
      const ports = Layer.mergeAll(
        MemoryIdempotencyStore.layer.pipe(Layer.provideMerge(repository)),
        MemoryApiKeyStore.layer,
        MemoryRateLimitStore.layer,
        ListPetsQuery.layerRandomCursorSecret
      )
      const api = yield* start({ ports })
      const { secret } = yield* api.issue("pro")
      const first = yield* Effect.fork(post(api, secret, { name: "Slow", categoryId: 1 }, "slow"))
      yield* Deferred.await(entered)
      yield* expectCode(yield* post(api, secret, { name: "Slow", categoryId: 1 }, "slow"), 409, "idempotency_key_in_use")
      yield* expectCode(yield* post(api, secret, { name: "Other", categoryId: 1 }, "slow"), 409, "idempotency_key_in_use")
      yield* Deferred.succeed(gate, undefined)
      const done = yield* Fiber.join(first)
      expect(done.status).toBe(201)
      const pet = yield* json(done)
      const replay = yield* post(api, secret, { name: "Slow", categoryId: 1 }, "slow")
      expect(replay.headers.get("idempotent-replayed")).toBe("true")
      expect(yield* json(replay)).toEqual(pet)
      expect((yield* listed(api, secret)).length).toBe(1)
    }))
})

describe("Idempotency-Key in the OpenAPI document", () => {
  it.scoped("createPet declares the header, 409, 422 and Idempotent-Replayed on 201", () =>
    Effect.gen(function*() {
      const api = yield* Effect.flatMap(portsOf("memory"), (ports) => start({ ports }))
      const document = yield* json(yield* api.request("/v1/openapi.json"))
      const createPet = Object.values<any>(document.paths).find((methods) => methods.post)!.post
      expect(createPet.parameters).toContainEqual(expect.objectContaining({
        name: "Idempotency-Key",
        in: "header",
        required: false,
        schema: expect.objectContaining({ type: "string", minLength: 1, maxLength: 255 })
      }))
      expect(Object.keys(createPet.responses)).toEqual(expect.arrayContaining(["201", "409", "422"]))
      expect(createPet.responses["201"].headers["Idempotent-Replayed"]).toBeDefined()
      expect(document.components.schemas.Error.properties.code.enum).toEqual(
        expect.arrayContaining(["idempotency_key_in_use", "idempotency_key_reused"])
      )
    }))
})
