import { describe, expect, it } from "@effect/vitest"
import { Chunk, Effect, Either, FastCheck as fc, Logger, Runtime, Stream, TestClock } from "effect"
import * as AnimalStoreClient from "../src/AnimalStoreClient.js"
import * as ClientError from "../src/ClientError.js"
import * as Deprecation from "../src/Deprecation.js"
import { driven, recordingFetch } from "./support/Drive.js"
import * as Server from "./support/Server.js"

type Sent = Array<{ readonly at: number; readonly url: string }>

/** A client of `baseUrl`, built in the test's runtime (its clock is the test's). */
const clientOf = (options: AnimalStoreClient.Options, sent: Sent = []) =>
  AnimalStoreClient.make(options).pipe(Effect.provide(recordingFetch(sent)))

const failure = <A>(effect: Effect.Effect<A, ClientError.ClientError>) =>
  Effect.flip(effect).pipe(Effect.filterOrDieMessage((e) => e._tag === "ResponseError", "expected a ResponseError")) as Effect.Effect<
    ClientError.ResponseError
  >

const noRetry = { maxAttempts: 1 }

describe("AnimalStoreClient against a real server", () => {
  it.scoped("creates, reads and lists animals, typed", () =>
    Effect.gen(function*() {
      const server = yield* Server.start()
      const client = yield* clientOf({ baseUrl: server.baseUrl, apiKey: yield* server.issue("pro") })
      const rex = yield* client.createPet({ name: "  Rex ", categoryId: 2 })
      expect(rex).toMatchObject({ id: rex.id, name: "Rex", categoryId: 2, status: "available" })
      const tom = yield* client.createPet({ name: "Tom", categoryId: 3, status: "sold" })
      expect(yield* client.getPet(tom.id)).toEqual(tom)
      const page = yield* client.listPets({ limit: 1 })
      expect(page.pets).toEqual([rex])
      expect(page.next).toMatchObject({ limit: 1 })
      const rest = yield* client.listPets(page.next)
      expect(rest.pets).toEqual([tom])
      expect(rest.next).toBeUndefined()
      expect((yield* client.listPets({ status: "sold" })).pets).toEqual([tom])
      const budget = yield* client.budget
      expect(budget.remaining).toBe(300 - 6)
    }))

  it.scoped("pages through 250 animals as a Stream, following Link: rel=\"next\"", () =>
    Effect.gen(function*() {
      const server = yield* Server.start()
      const sent: Sent = []
      const client = yield* clientOf({ baseUrl: server.baseUrl, apiKey: yield* server.issue("business") }, sent)
      yield* Effect.forEach(Array.from({ length: 250 }, (_, i) => i), (i) =>
        client.createPet({ name: `pet ${i}`, categoryId: 1 + (i % 3), status: i % 2 === 0 ? "available" : "pending" }), {
        concurrency: 8,
        discard: true
      })
      const listed = sent.length
      const all = Chunk.toReadonlyArray(yield* Stream.runCollect(client.pets({ limit: 100 })))
      expect(all.map((pet) => pet.id)).toEqual(Array.from({ length: 250 }, (_, i) => i + 1))
      expect(sent.length - listed).toBe(3)
      const pending = Chunk.toReadonlyArray(yield* Stream.runCollect(client.pets({ status: "pending", limit: 40 })))
      expect(pending.length).toBe(125)
      expect(pending.every((pet) => pet.status === "pending")).toBe(true)
    }))

  it.scoped("fails with typed errors by code", () =>
    Effect.gen(function*() {
      const server = yield* Server.start()
      const apiKey = yield* server.issue("pro")
      const client = yield* clientOf({ baseUrl: server.baseUrl, apiKey, retry: noRetry })

      const unauthorized = yield* failure(
        (yield* clientOf({ baseUrl: server.baseUrl, apiKey: "ask_live_nobody000000000000000000" })).listPets()
      )
      expect(unauthorized).toMatchObject({ code: "unauthorized", status: 401, attempts: 1 })
      expect(unauthorized.rateLimit?.limit).toBe(60)

      const notFound = yield* failure(client.getPet(424242))
      expect(notFound).toMatchObject({ code: "not_found", status: 404, attempts: 1 })
      expect(notFound.rateLimit).toMatchObject({ limit: 300, remaining: 299 })

      const forged = yield* failure(client.listPets({ cursor: `c1.AQ.${"A".repeat(22)}` }))
      expect(forged).toMatchObject({ code: "invalid_request", status: 400, attempts: 1 })

      const local = yield* failure(client.createPet({ name: " ", categoryId: 0 }))
      expect(local).toMatchObject({ code: "invalid_request", status: 400, attempts: 0 })
      expect(local.details.map((detail) => detail.path).sort()).toEqual(["/categoryId", "/name"])

      const first = yield* client.createPet({ name: "Once", categoryId: 1 }, { idempotencyKey: "order-1" })
      expect(yield* client.createPet({ name: "Once", categoryId: 1 }, { idempotencyKey: "order-1" })).toEqual(first)
      const reused = yield* failure(client.createPet({ name: "Other", categoryId: 1 }, { idempotencyKey: "order-1" }))
      expect(reused).toMatchObject({ code: "idempotency_key_reused", status: 422 })
      expect((yield* client.listPets()).pets).toEqual([first])
      expect(ClientError.isCode(reused, "idempotency_key_reused")).toBe(true)
      expect(ClientError.isCode(reused, "not_found")).toBe(false)
    }))

  it.scoped("reports getPet's deprecation once per process, then fails with gone after the sunset", () =>
    Effect.gen(function*() {
      Deprecation.resetReported()
      const server = yield* Server.start()
      const apiKey = yield* server.issue("pro")
      const notices: Array<Deprecation.Notice> = []
      const logs: Array<string> = []
      const logger = Logger.replace(Logger.defaultLogger, Logger.make(({ message }) => logs.push(String(message))))
      const client = yield* clientOf({ baseUrl: server.baseUrl, apiKey, onDeprecation: (n) => notices.push(n) })
      const other = yield* clientOf({ baseUrl: server.baseUrl, apiKey, onDeprecation: (n) => notices.push(n) })
      const pet = yield* client.createPet({ name: "Old", categoryId: 1 })
      yield* Effect.provide(Effect.all([client.getPet(pet.id), client.getPet(pet.id), other.getPet(pet.id)]), logger)
      expect(notices).toEqual([{
        operation: "getPet",
        deprecatedSince: expect.any(Date),
        sunset: new Date("2030-12-05T00:00:00Z"),
        successor: "/v1/pets"
      }])
      expect(logs.filter((line) => line.includes("getPet is deprecated"))).toHaveLength(1)

      yield* TestClock.setTime(Date.parse("2030-12-05T00:00:00Z"))
      const gone = yield* failure(client.getPet(pet.id))
      expect(gone).toMatchObject({ code: "gone", status: 410, attempts: 1 })
      expect(notices).toHaveLength(1)
    }))

  it.scoped("without retries, a 429 fails with when to retry and the headers seen", () =>
    Effect.gen(function*() {
      const server = yield* Server.start()
      const client = yield* clientOf({ baseUrl: server.baseUrl, apiKey: yield* server.issue("free"), retry: noRetry, pacing: false })
      yield* Effect.replicateEffect(client.listPets({ limit: 1 }), 60)
      yield* TestClock.adjust(20_000)
      const limited = yield* failure(client.listPets())
      expect(limited).toMatchObject({ code: "rate_limited", status: 429, attempts: 1 })
      expect(limited.retryAt).toEqual(new Date(60_000))
      expect(limited.rateLimit).toEqual({ limit: 60, remaining: 0, reset: 60 })
    }))

  it.scoped("on 429 waits for Retry-After before sending again, then succeeds", () =>
    Effect.gen(function*() {
      const server = yield* Server.start()
      const sent: Sent = []
      const client = yield* clientOf(
        { baseUrl: server.baseUrl, apiKey: yield* server.issue("free"), pacing: false, retry: { jitter: 0.5 } },
        sent
      )
      yield* Effect.replicateEffect(client.listPets({ limit: 1 }), 60)
      yield* TestClock.adjust(30_000)
      const page = yield* driven(client.listPets({ limit: 1 }))
      expect(page.pets).toEqual([])
      const [refused, retried] = sent.slice(60)
      expect(sent).toHaveLength(62)
      expect(refused!.at).toBe(30_000)
      expect(retried!.at).toBeGreaterThanOrEqual(60_000)
      expect(retried!.at).toBeLessThanOrEqual(60_000 + 250)
    }))

  it.scoped("with pacing, holds the 61st request of a free key until the window resets instead of spending a 429", () =>
    Effect.gen(function*() {
      const server = yield* Server.start()
      const sent: Sent = []
      const client = yield* clientOf({ baseUrl: server.baseUrl, apiKey: yield* server.issue("free") }, sent)
      yield* Effect.replicateEffect(client.listPets({ limit: 1 }), 60)
      yield* TestClock.adjust(10_000)
      yield* driven(client.listPets({ limit: 1 }))
      expect(sent).toHaveLength(61)
      expect(sent[60]!.at).toBe(60_000)
    }))

  it.scoped("once banned, fails at once with the ban's end and sends nothing more", () =>
    Effect.gen(function*() {
      const server = yield* Server.start({ banAfter: 2, banSeconds: 600 })
      const sent: Sent = []
      const client = yield* clientOf(
        { baseUrl: server.baseUrl, apiKey: yield* server.issue("free"), retry: noRetry, pacing: false },
        sent
      )
      yield* Effect.replicateEffect(client.listPets(), 60)
      const codes = yield* Effect.forEach([1, 2, 3], () => Effect.map(failure(client.listPets()), (e) => e.code))
      expect(codes).toEqual(["rate_limited", "rate_limited", "api_key_banned"])
      expect(sent).toHaveLength(63)
      const atOnce = yield* failure(client.getPet(1))
      expect(atOnce).toMatchObject({ code: "api_key_banned", attempts: 0, retryAt: new Date(600_000) })
      expect(sent).toHaveLength(63)
      yield* TestClock.setTime(600_000)
      expect((yield* client.listPets()).pets).toEqual([])
    }))

  it.scoped("a client that follows the rules is never banned, however fast it is asked to send", () =>
    Effect.gen(function*() {
      const server = yield* Server.start()
      const runtime = yield* Effect.runtime<never>()
      yield* Effect.promise(() =>
        fc.assert(
          fc.asyncProperty(
            fc.integer({ min: 61, max: 130 }),
            fc.integer({ min: 1, max: 10 }),
            fc.boolean(),
            fc.record({ baseDelayMillis: fc.integer({ min: 0, max: 2_000 }), jitter: fc.double({ min: 0, max: 0.5, noNaN: true }) }),
            (requests, concurrency, pacing, retry) =>
              Runtime.runPromise(runtime)(Effect.gen(function*() {
                const client = yield* clientOf({
                  baseUrl: server.baseUrl,
                  apiKey: yield* server.issue("free"),
                  pacing,
                  retry: { ...retry, maxAttempts: 1_000 }
                })
                const results = yield* driven(
                  Effect.forEach(Array.from({ length: requests }), () => Effect.either(client.listPets({ limit: 1 })), { concurrency })
                )
                expect(results.filter(Either.isLeft).map((e) => e.left)).toEqual([])
              }))
          ),
          { numRuns: 8 }
        )
      )
    }))
})

describe("AnimalStoreClient through a faulty network", () => {
  it.scoped("retries a GET on 5xx up to maxAttempts, then fails with the last answer", () =>
    Effect.gen(function*() {
      const server = yield* Server.start()
      const proxied = yield* Server.proxy(server.origin, () => "503")
      const client = yield* clientOf({ baseUrl: proxied.baseUrl, apiKey: yield* server.issue("pro"), retry: { maxAttempts: 4 } })
      const down = yield* driven(failure(client.listPets()))
      expect(down).toMatchObject({ code: "service_unavailable", status: 503, attempts: 4 })
      expect(proxied.seen()).toHaveLength(4)
    }))

  it.scoped("retries a createPet whose response was lost with the same Idempotency-Key: one animal", () =>
    Effect.gen(function*() {
      const server = yield* Server.start()
      const keys: Array<string | undefined> = []
      const proxied = yield* Server.proxy(server.origin, (n, request) => {
        keys.push(request.headers["idempotency-key"] as string | undefined)
        return n === 1 ? "drop" : "pass"
      })
      const apiKey = yield* server.issue("pro")
      const client = yield* clientOf({ baseUrl: proxied.baseUrl, apiKey })
      const created = yield* driven(client.createPet({ name: "Lost once", categoryId: 1 }))
      expect(keys).toHaveLength(2)
      expect(keys[0]).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
      expect(keys[1]).toBe(keys[0])
      const direct = yield* clientOf({ baseUrl: server.baseUrl, apiKey })
      expect((yield* direct.listPets()).pets).toEqual([created])
    }))

  it.scoped("fails with a TransportError when nothing answers, after maxAttempts", () =>
    Effect.gen(function*() {
      const client = yield* clientOf({ baseUrl: "http://127.0.0.1:1/v1", apiKey: "ask_live_x", retry: { maxAttempts: 3 } })
      const error = yield* Effect.flip(driven(client.listPets()))
      expect(error).toMatchObject({ _tag: "TransportError", attempts: 3 })
    }))
})

