/**
 * The operations features of the adapter over a real socket: the probes
 * (`/healthz`, `/readyz`: not counted, readiness kept for a second of the
 * `Clock`), `X-Request-Id` on every response and in its access line, the
 * access log by level, and the key id in the access line of a refused key.
 */
import { StoreError, StoreReadiness } from "@animal-store/core"
import { MemoryStore } from "@animal-store/memory-store"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Fiber, Layer, Logger, LogLevel, TestClock } from "effect"
import * as fc from "effect/FastCheck"
import type * as AccessLog from "../src/AccessLog.js"
import * as RequestId from "../src/RequestId.js"
import * as RawSocket from "./support/RawSocket.js"
import type { TestServerOptions } from "./support/TestServer.js"
import { bearer, start } from "./support/TestServer.js"

const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/

const get = (origin: string, path: string, init?: RequestInit) => Effect.promise(() => fetch(origin + path, init))
const text = (response: Response) => Effect.promise(() => response.text())

/** A store whose readiness check is driven by the test: `state.mode`, and how many checks ran. */
const drivenReadiness = () => {
  const state = { mode: "ready" as "ready" | "failing" | "hanging", checks: 0 }
  const check = Effect.suspend(() => {
    state.checks++
    return state.mode === "ready"
      ? Effect.void
      : state.mode === "failing"
      ? Effect.fail(new StoreError.StoreError({ reason: "Corrupt", message: "disk /srv/secret-path is gone" }))
      : Effect.never
  })
  // In a merge the right-hand layer's services win.
  return { state, ports: Layer.merge(MemoryStore.layer, StoreReadiness.layer(check)) }
}

/** A server whose access lines are collected. */
const startLogged = (options: Partial<TestServerOptions>) =>
  Effect.gen(function*() {
    const lines: Array<AccessLog.Entry> = []
    const api = yield* start({
      ports: MemoryStore.layer,
      ...options,
      adapter: { ...options.adapter, accessLog: (entry) => void lines.push(entry) }
    })
    return { api, lines }
  })

describe("RequestId", () => {
  it.prop(
    "keeps a value of 1 to 128 visible ASCII characters, and only those",
    { value: fc.oneof(fc.string({ unit: "binary", maxLength: 140 }), fc.string({ minLength: 120, maxLength: 135 })) },
    ({ value }) => {
      const valid = value.length >= 1 && value.length <= 128 && [...value].every((c) => c >= "!" && c <= "~")
      expect(RequestId.isValid(value)).toBe(valid)
      expect(RequestId.of(value) === value).toBe(valid)
    }
  )

  it("generates a random UUID for a missing or invalid value", () => {
    const generated = [RequestId.of(undefined), RequestId.of(""), RequestId.of("a b"), RequestId.of("x".repeat(129)), RequestId.generate()]
    for (const id of generated) expect(id).toMatch(uuid)
    expect(new Set(generated).size).toBe(generated.length)
    expect(RequestId.of("~".repeat(128))).toBe("~".repeat(128))
  })
})

describe("the probes", () => {
  it.scoped("answer without a key, are not counted, carry no rate-limit fields and are not in the API document", () =>
    Effect.gen(function*() {
      const api = yield* start({ ports: MemoryStore.layer, access: { anonymousPerMinute: 2 } })
      for (const path of ["/healthz", "/readyz", "/healthz", "/readyz", "/healthz?verbose=1"]) {
        const response = yield* get(api.origin, path, { headers: bearer("ask_live_notakeyatallnotakeyatall") })
        expect(response.status).toBe(200)
        expect(JSON.parse(yield* text(response))).toEqual({ status: "ok" })
        expect(response.headers.get("x-ratelimit-limit")).toBeNull()
        expect(response.headers.get("cache-control")).toBe("no-store")
      }
      const head = yield* get(api.origin, "/readyz", { method: "HEAD" })
      expect(head.status).toBe(200)
      expect(head.headers.get("content-type")).toBe("application/json; charset=utf-8")
      expect(yield* text(head)).toBe("")

      const document = yield* get(api.origin, "/v1/openapi.json")
      expect(document.status).toBe(200)
      expect(document.headers.get("x-ratelimit-remaining")).toBe("1")
      expect(yield* text(document)).not.toMatch(/healthz|readyz/)
    }))

  it.scoped("answer other methods as any route does: OPTIONS 204 and 405, both with Allow", () =>
    Effect.gen(function*() {
      const api = yield* start({ ports: MemoryStore.layer })
      const options = yield* get(api.origin, "/healthz", { method: "OPTIONS" })
      expect(options.status).toBe(204)
      expect(options.headers.get("allow")).toBe("GET, HEAD, OPTIONS")
      const post = yield* get(api.origin, "/readyz", { method: "POST" })
      expect(post.status).toBe(405)
      expect(post.headers.get("allow")).toBe("GET, HEAD, OPTIONS")
      expect(JSON.parse(yield* text(post))).toMatchObject({ code: "method_not_allowed", status: 405 })
      expect((yield* get(api.origin, "/v1/healthz")).status).toBe(404)
    }))

  it.scoped("/readyz checks the store at most once a second, and answers 503 service_unavailable while it fails", () =>
    Effect.gen(function*() {
      const { ports, state } = drivenReadiness()
      const api = yield* start({ ports })
      const ready = yield* get(api.origin, "/readyz")
      expect([ready.status, state.checks]).toEqual([200, 1])
      state.mode = "failing"
      expect((yield* get(api.origin, "/readyz")).status).toBe(200)
      expect(state.checks).toBe(1)
      // The liveness probe never asks the store.
      expect((yield* get(api.origin, "/healthz")).status).toBe(200)
      expect(state.checks).toBe(1)

      yield* TestClock.adjust("1 second")
      const failing = yield* get(api.origin, "/readyz")
      expect([failing.status, state.checks]).toEqual([503, 2])
      expect(failing.headers.get("retry-after")).toBe("1")
      const body = yield* text(failing)
      expect(JSON.parse(body)).toEqual({
        code: "service_unavailable",
        message: "The service cannot reach its store; retry later",
        status: 503
      })
      expect(body).not.toContain("secret-path")
      expect((yield* get(api.origin, "/readyz")).status).toBe(503)
      expect(state.checks).toBe(2)

      state.mode = "ready"
      yield* TestClock.adjust("1 second")
      expect((yield* get(api.origin, "/readyz")).status).toBe(200)
      expect(state.checks).toBe(3)
    }).pipe(Effect.provide(Logger.remove(Logger.defaultLogger))))

  it.scoped("/readyz answers 503 when the store does not answer within 1 s", () =>
    Effect.gen(function*() {
      const { ports, state } = drivenReadiness()
      state.mode = "hanging"
      const api = yield* start({ ports })
      const probe = yield* Effect.fork(get(api.origin, "/readyz"))
      while ((yield* TestClock.sleeps()).length === 0) yield* Effect.promise(() => new Promise((r) => setTimeout(r, 5)))
      yield* TestClock.adjust("999 millis")
      expect(probe.unsafePoll()).toBeNull()
      yield* TestClock.adjust("1 millis")
      const response = yield* Fiber.join(probe)
      expect(response.status).toBe(503)
      expect(JSON.parse(yield* text(response))).toMatchObject({ code: "service_unavailable" })
    }).pipe(Effect.provide(Logger.remove(Logger.defaultLogger))))
})

describe("X-Request-Id", () => {
  it.scoped("is kept when valid, generated otherwise, on every response, and in its access line", () =>
    Effect.gen(function*() {
      const { ports, state } = drivenReadiness()
      state.mode = "failing"
      const { api, lines } = yield* startLogged({ ports, access: { anonymousPerMinute: 9 }, adapter: { corsOrigins: ["*"] } })
      const { secret } = yield* api.issue("free")
      const key = bearer(secret)
      const sent: Array<readonly [number, string | undefined, RequestInit & { readonly path: string }]> = [
        [200, "req-200", { path: "/v1/pets", headers: key }],
        [200, "~".repeat(128), { path: "/v1/pets", headers: key }],
        [200, "x".repeat(129), { path: "/v1/pets", headers: key }],
        [200, "has space", { path: "/v1/pets", headers: key }],
        [400, "req-400", { path: "/v1/pets?limit=0", headers: key }],
        [401, "req-401", { path: "/v1/pets" }],
        [404, "req-404", { path: "/nowhere" }],
        [405, undefined, { path: "/v1/pets/1", method: "DELETE" }],
        [413, "req-413", { path: "/v1/pets", method: "POST", headers: { ...key, "content-type": "application/json" }, body: "x".repeat(70_000) }],
        [503, "req-503", { path: "/readyz" }],
        [200, "req-healthz", { path: "/healthz" }],
        [204, "req-preflight", {
          path: "/v1/pets",
          method: "OPTIONS",
          headers: { origin: "https://app.example.com", "access-control-request-method": "POST" }
        }]
      ]
      for (const [status, id, { path, ...init }] of sent) {
        const headers = { ...(init.headers as Record<string, string> | undefined), ...(id === undefined ? {} : { "x-request-id": id }) }
        const response = yield* get(api.origin, path, { ...init, headers })
        expect(response.status).toBe(status)
        const echoed = response.headers.get("x-request-id")
        if (id !== undefined && RequestId.isValid(id)) expect(echoed).toBe(id)
        else expect(echoed).toMatch(uuid)
        if (path !== "/readyz" && path !== "/healthz") {
          expect(lines.at(-1)).toMatchObject({ path, status, requestId: echoed })
        }
        if (status === 204) {
          expect(response.headers.get("access-control-expose-headers")).toContain("X-Request-Id")
          expect(response.headers.get("access-control-allow-headers")).toContain("X-Request-Id")
        }
      }

      // Over the anonymous limit (9 a minute): a 429 of the client address.
      let limited: Response | undefined
      for (let i = 0; i < 9 && limited === undefined; i++) {
        const response = yield* get(api.origin, "/v1/pets", { headers: { "x-request-id": `anon-${i}` } })
        if (response.status === 429) limited = response
      }
      expect(limited?.headers.get("x-request-id")).toMatch(/^anon-\d$/)
      expect(lines.at(-1)).toMatchObject({ status: 429, requestId: limited?.headers.get("x-request-id") })

      // A request the parser rejects gets a new one.
      const connection = yield* RawSocket.connect(api.origin)
      yield* connection.write("GET /v1/pets HTTP/1.1\r\nHost: x\r\nX-Request-Id: sent\r\nBad Header\r\n\r\n")
      const rejected = yield* connection.next
      expect(rejected.status).toBe(400)
      expect(rejected.headers["x-request-id"]).toMatch(uuid)
      expect(lines.at(-1)).toMatchObject({ status: 400, requestId: rejected.headers["x-request-id"] })
    }).pipe(Effect.provide(Logger.remove(Logger.defaultLogger))))
})

describe("the access log", () => {
  it.scoped("carries the key id of a key refused by its limits or banned", () =>
    Effect.gen(function*() {
      const { api, lines } = yield* startLogged({ access: { banAfter: 1 } })
      const { id, secret } = yield* api.issue("enterprise", { limits: { perMinute: 1, perDay: 10 } })
      const statuses: Array<number> = []
      for (let i = 0; i < 3; i++) statuses.push((yield* get(api.origin, "/v1/pets", { headers: bearer(secret) })).status)
      expect(statuses).toEqual([200, 429, 429])
      expect(lines.map((line) => [line.status, line.keyId])).toEqual([[200, id], [429, id], [429, id]])
    }))

  const levels = [
    [LogLevel.Debug, ["/healthz", "/v1/pets"]],
    [LogLevel.Info, ["/v1/pets"]],
    [LogLevel.Warning, []],
    [LogLevel.None, []]
  ] as const
  for (const [level, logged] of levels) {
    it.scoped(`at level ${level.label} logs ${logged.length === 0 ? "no line" : logged.join(" and ")}`, () =>
      Effect.gen(function*() {
        const { api, lines } = yield* startLogged({})
        expect((yield* get(api.origin, "/healthz")).status).toBe(200)
        expect((yield* get(api.origin, "/v1/pets")).status).toBe(401)
        expect(lines.map((line) => line.path)).toEqual(logged)
        expect(lines.filter((line) => line.probe === true).map((line) => line.path)).toEqual(
          logged.filter((path) => path === "/healthz")
        )
      }).pipe(Logger.withMinimumLogLevel(level)))
  }
})
