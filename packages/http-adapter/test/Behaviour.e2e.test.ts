import { PetRepository, StoreError } from "@animal-store/core"
import { MemoryStore } from "@animal-store/memory-store"
import { describe, expect, it } from "@effect/vitest"
import { Effect, HashMap, Layer, Logger } from "effect"
import { SqliteStore } from "@animal-store/sqlite-store"
import { bearer, json, jsonBody, portsOf, start, temporaryDatabase } from "./support/TestServer.js"

const failingPets = (fail: Effect.Effect<never, StoreError.StoreError>) =>
  Layer.mergeAll(
    MemoryStore.layer,
    Layer.succeed(PetRepository.PetRepository, { insert: () => fail, findById: () => fail, list: () => fail })
  )

describe("failures disclose nothing", () => {
  const internal = { code: "internal_error", message: "An internal error occurred", status: 500 }

  it.scoped("a store that cannot be reached is a 503 service_unavailable with Retry-After and the rate-limit fields", () =>
    Effect.gen(function*() {
      const api = yield* start({
        ports: failingPets(
          Effect.fail(new StoreError.StoreError({ reason: "Unavailable", message: "host db.secret-host is down" }))
        )
      })
      const { secret } = yield* api.issue("pro")
      for (const response of [
        yield* api.request("/v1/pets", { headers: bearer(secret) }),
        yield* api.request("/v1/pets", jsonBody(secret, { name: "A", categoryId: 1 })),
        yield* api.request("/v1/pets/1", { headers: bearer(secret) })
      ]) {
        expect(response.status).toBe(503)
        expect(response.headers.get("retry-after")).toBe("1")
        const text = yield* Effect.promise(() => response.text())
        expect(JSON.parse(text)).toEqual({
          code: "service_unavailable",
          message: "The service cannot reach its store; retry later",
          status: 503
        })
        expect(text).not.toContain("secret-host")
        expect(response.headers.get("x-ratelimit-limit")).toBe("300")
      }
    }).pipe(Effect.provide(Logger.remove(Logger.defaultLogger))))

  it.scoped("any other store failure is a 500 with the bare Error body and the rate-limit fields", () =>
    Effect.gen(function*() {
      const api = yield* start({
        ports: failingPets(
          Effect.fail(new StoreError.StoreError({ reason: "Corrupt", message: "disk /srv/secret-path is gone" }))
        )
      })
      const { secret } = yield* api.issue("pro")
      for (const response of [
        yield* api.request("/v1/pets", { headers: bearer(secret) }),
        yield* api.request("/v1/pets", jsonBody(secret, { name: "A", categoryId: 1 })),
        yield* api.request("/v1/pets/1", { headers: bearer(secret) })
      ]) {
        expect(response.status).toBe(500)
        const text = yield* Effect.promise(() => response.text())
        expect(JSON.parse(text)).toEqual(internal)
        expect(text).not.toContain("secret-path")
        expect(response.headers.get("x-ratelimit-limit")).toBe("300")
      }
    }).pipe(Effect.provide(Logger.remove(Logger.defaultLogger))))

  it.scoped("a defect is a 500 with the bare Error body", () =>
    Effect.gen(function*() {
      const api = yield* start({ ports: failingPets(Effect.dieMessage("bug at /srv/secret-path")) })
      const { secret } = yield* api.issue("pro")
      const response = yield* api.request("/v1/pets", { headers: bearer(secret) })
      expect(response.status).toBe(500)
      const text = yield* Effect.promise(() => response.text())
      expect(JSON.parse(text)).toEqual(internal)
      expect(text).not.toContain("secret-path")
    }).pipe(Effect.provide(Logger.remove(Logger.defaultLogger))))
})

describe("the client address", () => {
  const anonymousStatuses = (trustedProxies: ReadonlyArray<string>) =>
    Effect.gen(function*() {
      const api = yield* start({
        ports: MemoryStore.layer,
        access: { anonymousPerMinute: 1 },
        adapter: { trustedProxies }
      })
      const statuses: Array<number> = []
      for (const forwardedFor of ["203.0.113.1", "203.0.113.2", "198.51.100.7, 203.0.113.3"]) {
        statuses.push((yield* api.request("/v1/openapi.json", { headers: { "x-forwarded-for": forwardedFor } })).status)
      }
      return statuses
    })

  it.scoped("is the socket's peer: X-Forwarded-For from an untrusted peer is ignored", () =>
    Effect.map(anonymousStatuses([]), (statuses) => expect(statuses).toEqual([200, 429, 429])))

  it.scoped("comes from X-Forwarded-For when the peer is a trusted proxy", () =>
    Effect.map(anonymousStatuses(["127.0.0.1"]), (statuses) => expect(statuses).toEqual([200, 200, 200])))
})

describe("the access log", () => {
  it.scoped("writes one line per request with method, path and query, status, duration and key id, never the secret", () =>
    Effect.gen(function*() {
      const lines: Array<{ message: unknown; annotations: Record<string, unknown> }> = []
      const capture = Logger.make(({ annotations, message }) => {
        lines.push({
          message: Array.isArray(message) ? message[0] : message,
          annotations: Object.fromEntries(HashMap.toEntries(annotations))
        })
      })
      const api = yield* start({ ports: MemoryStore.layer, adapter: { accessLog: true } }).pipe(
        Effect.provide(Logger.replace(Logger.defaultLogger, capture))
      )
      const { id, secret } = yield* api.issue("pro")
      yield* api.request("/v1/pets?limit=5&status=sold", { headers: bearer(secret) })
      yield* api.request("/v1/pets", jsonBody(secret, { name: "A", categoryId: 1 }))
      yield* api.request("/nowhere")
      const access = lines.filter((line) => line.message === "http.request")
      expect(access.map(({ annotations }) => [annotations.method, annotations.path, annotations.status, annotations.keyId]))
        .toEqual([
          ["GET", "/v1/pets?limit=5&status=sold", 200, id],
          ["POST", "/v1/pets", 201, id],
          ["GET", "/nowhere", 404, undefined]
        ])
      for (const { annotations } of access) {
        expect(typeof annotations.durationMs).toBe("number")
        expect(annotations.client).toBe("127.0.0.1")
      }
      expect(JSON.stringify(lines)).not.toContain(secret)
    }))

  it.scoped("is off with accessLog: false", () =>
    Effect.gen(function*() {
      const lines: Array<unknown> = []
      const api = yield* start({ ports: MemoryStore.layer, adapter: { accessLog: false } }).pipe(
        Effect.provide(Logger.replace(Logger.defaultLogger, Logger.make(({ message }) => lines.push(message))))
      )
      yield* api.request("/v1/pets")
      expect(lines).toEqual([])
    }))
})

describe("a restart on the same SQLite file", () => {
  it.scoped("keeps the animals, the keys and the rate-limit counts", () =>
    Effect.gen(function*() {
      const filename = yield* temporaryDatabase
      const ports = SqliteStore.layer({ filename })
      const { remaining, secret } = yield* Effect.scoped(Effect.gen(function*() {
        const api = yield* start({ ports })
        const { secret } = yield* api.issue("free")
        yield* api.request("/v1/pets", jsonBody(secret, { name: "Kept", categoryId: 3 }))
        const listed = yield* api.request("/v1/pets", { headers: bearer(secret) })
        return { secret, remaining: Number(listed.headers.get("x-ratelimit-remaining")) }
      }))
      expect(remaining).toBe(58)
      const api = yield* start({ ports })
      const listed = yield* api.request("/v1/pets", { headers: bearer(secret) })
      expect(listed.status).toBe(200)
      expect(yield* json(listed)).toEqual([{ id: 1, name: "Kept", categoryId: 3, status: "available" }])
      expect(listed.headers.get("x-ratelimit-remaining")).toBe("57")
      expect(listed.headers.get("ratelimit")).toMatch(/"day";r=997;/)
      const created = yield* json(yield* api.request("/v1/pets", jsonBody(secret, { name: "Next", categoryId: 3 })))
      expect(created.id).toBe(2)
    }))

  it.scoped("portsOf gives each test its own empty file", () =>
    Effect.gen(function*() {
      const api = yield* Effect.flatMap(portsOf("sqlite"), (ports) => start({ ports }))
      const { secret } = yield* api.issue("free")
      expect(yield* json(yield* api.request("/v1/pets", { headers: bearer(secret) }))).toEqual([])
    }))
})
