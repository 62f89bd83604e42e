import { ApiKeyAuth, PlanRateLimiter } from "@animal-store/core"
import { HttpServer } from "@effect/platform"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer, Logger, Redacted } from "effect"
import * as Http from "node:http"
import * as AdminApi from "../src/AdminApi.js"
import * as StandaloneServer from "../src/StandaloneServer.js"
import * as StoreLocation from "../src/StoreLocation.js"
import { temporaryDatabase } from "./support/temporaryDatabase.js"

const token = "admin-token-of-the-test-0123456789"

interface LogLine {
  readonly level: string
  readonly message: string
  readonly annotations: Record<string, unknown>
}

/** The admin app on a listener of its own (port 0), on a SQLite store; its log lines; the store's services. */
const serveAdmin = Effect.gen(function*() {
  const filename = yield* temporaryDatabase
  const lines: Array<LogLine> = []
  const collector = Logger.make(({ annotations, logLevel, message }) => {
    lines.push({
      level: logLevel.label,
      message: (Array.isArray(message) ? message : [message]).join(" "),
      annotations: Object.fromEntries(annotations)
    })
  })
  const services = yield* Layer.build(
    StandaloneServer.layerServices({ _tag: "Sqlite", filename }, { banAfter: 1, banSeconds: 600 })
  )
  const server = yield* Layer.build(NodeHttpServer.layer(Http.createServer, { port: 0, host: "127.0.0.1" }))
  yield* Effect.gen(function*() {
    const app = yield* AdminApi.httpApp(Redacted.make(token))
    yield* HttpServer.serve(app).pipe(Layer.buildWithScope(yield* Effect.scope))
  }).pipe(Effect.provide(services), Effect.provide(server), Effect.provide(Logger.replace(Logger.defaultLogger, collector)))
  const address = (yield* Effect.provide(HttpServer.HttpServer, server)).address as HttpServer.TcpAddress
  const origin = `http://127.0.0.1:${address.port}`
  const call = (method: string, path: string, options: { readonly body?: string; readonly authorization?: string | null } = {}) =>
    Effect.promise(async () => {
      const authorization = options.authorization === undefined ? `Bearer ${token}` : options.authorization
      const response = await fetch(`${origin}${path}`, {
        method,
        headers: {
          ...(authorization === null ? {} : { authorization }),
          ...(options.body === undefined ? {} : { "content-type": "application/json" })
        },
        ...(options.body === undefined ? {} : { body: options.body })
      })
      const text = await response.text()
      return { status: response.status, text, body: text === "" ? undefined : JSON.parse(text) }
    })
  return { call, lines, services, filename }
})

const expectError = (reply: { status: number; body: unknown }, status: number, code: string) => {
  expect(reply.status).toBe(status)
  expect(reply.body).toMatchObject({ code, message: expect.any(String), status })
  // the public API's `Error` body: nothing else than its fields
  expect(Object.keys(reply.body as object).filter((field) => !["code", "message", "status", "details"].includes(field)))
    .toEqual([])
}

describe("the admin API", () => {
  it.scopedLive("refuses a missing or wrong token with a 401 Error body, on every route", () =>
    Effect.gen(function*() {
      const { call, lines } = yield* serveAdmin
      const routes = [["POST", "/admin/v1/keys"], ["GET", "/admin/v1/keys"], ["GET", "/admin/v1/keys/key_1"], [
        "DELETE",
        "/admin/v1/keys/key_1"
      ], ["POST", "/admin/v1/keys/key_1/unban"]] as const
      for (const [method, path] of routes) {
        for (
          const authorization of [null, "", "Bearer", "Bearer ", `Bearer ${token}x`, `Bearer ${token.slice(1)}`, `Basic ${token}`, token, `Bearer wrong`]
        ) {
          const body = method === "POST" && path.endsWith("keys") ? JSON.stringify({ plan: "free" }) : undefined
          expectError(yield* call(method, path, { authorization, ...(body === undefined ? {} : { body }) }), 401, "unauthorized")
        }
      }
      // nothing was issued by the refused POSTs
      expect((yield* call("GET", "/admin/v1/keys")).body).toEqual({ keys: [] })
      // the scheme in any case
      expect((yield* call("GET", "/admin/v1/keys", { authorization: `bearer ${token}` })).status).toBe(200)
      expect(lines.filter((line) => line.annotations["admin.action"] === "refused").length).toBe(routes.length * 9)
      expect(JSON.stringify(lines)).not.toContain(token.slice(1))
    }))

  it.scopedLive("issues, lists, shows, unbans and revokes keys; logs every action without a secret", () =>
    Effect.gen(function*() {
      const { call, filename, lines, services } = yield* serveAdmin
      const issued = yield* call("POST", "/admin/v1/keys", {
        body: JSON.stringify({ plan: "enterprise", limits: { perMinute: 2, perDay: 3 } })
      })
      expect(issued.status).toBe(201)
      const secret: string = issued.body.secret
      expect(secret).toMatch(/^ask_live_[A-Za-z0-9_-]{16,}$/)
      const id: string = issued.body.key.id
      expect(issued.body.key).toEqual({
        id,
        prefix: secret.slice(0, issued.body.key.prefix.length),
        plan: "enterprise",
        limits: { perMinute: 2, perDay: 3 },
        environment: "production",
        state: "active",
        bannedUntil: null,
        revokedAt: null,
        expiresAt: null,
        window: "fixed",
        previousSecret: null,
        createdAt: issued.body.key.createdAt,
        usage: { minute: 0, day: 0 }
      })
      const staging = yield* call("POST", "/admin/v1/keys", { body: JSON.stringify({ plan: "pro", environment: "staging" }) })
      expect(staging.status).toBe(201)
      expect(staging.body.secret).toMatch(/^ask_test_/)

      // The key works, and a server on the store counts it (its limiter bans at the second refusal).
      const principal = yield* Effect.flatMap(ApiKeyAuth.ApiKeyAuth, (auth) => auth.authenticate(secret)).pipe(Effect.provide(services))
      expect(principal.keyId).toBe(id)
      const startedAt = Date.now()
      yield* Effect.flatMap(PlanRateLimiter.PlanRateLimiter, (limiter) =>
        Effect.repeatN(limiter.check({ _tag: "Key", principal }), 3)).pipe(Effect.provide(services))

      const shown = yield* call("GET", `/admin/v1/keys/${id}`)
      expect(shown.status).toBe(200)
      expect(shown.body.state).toBe("banned")
      expect(shown.body.usage.day).toBe(2)
      expect(Date.parse(shown.body.bannedUntil)).toBeGreaterThanOrEqual(startedAt + 600_000)
      const listed = yield* call("GET", "/admin/v1/keys")
      expect(listed.status).toBe(200)
      expect(listed.body.keys.map((key: { id: string }) => key.id)).toEqual([id, staging.body.key.id])
      expect(listed.body.keys[0]).toEqual(shown.body)
      expect(listed.text).not.toContain(secret)

      const unbanned = yield* call("POST", `/admin/v1/keys/${id}/unban`)
      expect(unbanned.status).toBe(200)
      expect(unbanned.body).toEqual({ ...shown.body, state: "active", bannedUntil: null, usage: unbanned.body.usage })
      const afterUnban = yield* Effect.flatMap(PlanRateLimiter.PlanRateLimiter, (limiter) => limiter.check({ _tag: "Key", principal })).pipe(
        Effect.provide(services)
      )
      expect(afterUnban.outcome).toBe("RateLimited")

      const revoked = yield* call("DELETE", `/admin/v1/keys/${id}`)
      expect(revoked.status).toBe(200)
      expect(revoked.body.state).toBe("revoked")
      expect(Date.parse(revoked.body.revokedAt)).toBeGreaterThanOrEqual(startedAt)
      const refused = yield* Effect.flip(Effect.flatMap(ApiKeyAuth.ApiKeyAuth, (auth) => auth.authenticate(secret))).pipe(
        Effect.provide(services)
      )
      expect(refused.reason).toBe("revoked")

      // The store is a real file other processes share.
      expect(yield* StoreLocation.checkExists({ _tag: "Sqlite", filename })).toBeUndefined()

      const actions = lines.filter((line) => line.level === "INFO").map((line) => [line.annotations["admin.action"], line.annotations["key.id"]])
      expect(actions).toEqual([
        ["issueKey", id],
        ["issueKey", staging.body.key.id],
        ["getKey", id],
        ["listKeys", undefined],
        ["unbanKey", id],
        ["revokeKey", id]
      ])
      const logged = JSON.stringify(lines)
      expect(logged).not.toContain(secret)
      expect(logged).not.toContain(staging.body.secret)
      expect(logged).not.toContain(token)
    }))

  it.scopedLive("answers an unknown key, an invalid body and an unknown route with Error bodies", () =>
    Effect.gen(function*() {
      const { call } = yield* serveAdmin
      for (const [method, path] of [["GET", "/admin/v1/keys/key_nope"], ["DELETE", "/admin/v1/keys/key_nope"], ["POST", "/admin/v1/keys/key_nope/unban"]]) {
        const reply = yield* call(method!, path!)
        expectError(reply, 404, "not_found")
        expect(reply.body.message).toBe("No key with id \"key_nope\"")
      }
      expectError(yield* call("GET", "/admin/v1/nothing"), 404, "not_found")
      for (
        const body of [
          "{",
          JSON.stringify({ plan: "gold" }),
          JSON.stringify({ plan: "enterprise" }),
          JSON.stringify({ plan: "pro", limits: { perMinute: 5, perDay: 9 } }),
          JSON.stringify({ plan: "enterprise", limits: { perMinute: 0, perDay: 9 } })
        ]
      ) {
        expectError(yield* call("POST", "/admin/v1/keys", { body }), 400, "invalid_request")
      }
      const tooFew = yield* call("POST", "/admin/v1/keys", {
        body: JSON.stringify({ plan: "enterprise", limits: { perMinute: 10, perDay: 5 } })
      })
      expect(tooFew.status).toBe(400)
      expect(tooFew.body).toEqual({
        code: "invalid_request",
        message: "Invalid key options: limits.perDay must be at least limits.perMinute (10)",
        status: 400,
        details: [{ path: "limits.perDay", message: "must be at least limits.perMinute (10)" }]
      })
      expect((yield* call("GET", "/admin/v1/keys")).body).toEqual({ keys: [] })
    }))

  it.scopedLive("describes itself in its own OpenAPI document", () =>
    Effect.gen(function*() {
      const { call } = yield* serveAdmin
      const document = yield* call("GET", AdminApi.openApiPath, { authorization: null })
      expect(document.status).toBe(200)
      expect(document.body.info).toMatchObject({ title: "Animal Store admin API", version: "1.0.0" })
      expect(Object.keys(document.body.paths).sort()).toEqual([
        "/admin/v1/keys",
        "/admin/v1/keys/{id}",
        "/admin/v1/keys/{id}/rotate",
        "/admin/v1/keys/{id}/unban"
      ])
      const operations = Object.values(document.body.paths).flatMap((item) =>
        Object.values(item as Record<string, { operationId: string; security: unknown; responses: Record<string, unknown> }>)
      )
      expect(operations.map((operation) => operation.operationId).sort()).toEqual([
        "keys.getKey",
        "keys.issueKey",
        "keys.listKeys",
        "keys.revokeKey",
        "keys.rotateKey",
        "keys.unbanKey"
      ])
      for (const operation of operations) {
        expect(operation.security).toEqual([{ bearer: [] }])
        expect(Object.keys(operation.responses)).toContain("401")
      }
      expect(document.body.components.securitySchemes.bearer).toMatchObject({ type: "http", scheme: "bearer" })
      expect(Object.keys(document.body.paths["/admin/v1/keys"].post.responses)).toContain("201")
      const issueRequest = document.body.components.schemas.IssueKeyRequest
      expect(issueRequest.properties.expiresAt).toMatchObject({ type: "string", format: "date-time" })
      expect(issueRequest.properties.window.enum).toEqual(["fixed", "sliding"])
      const rotate = document.body.paths["/admin/v1/keys/{id}/rotate"].post
      expect(rotate.parameters.map((parameter: { name: string }) => parameter.name)).toContain("graceSeconds")
      expect(Object.keys(document.body.components.schemas.Key.properties)).toEqual(
        expect.arrayContaining(["expiresAt", "window", "previousSecret"])
      )
    }))

  it.scopedLive("issues keys that expire or count a sliding minute, and rotates keys with a grace period", () =>
    Effect.gen(function*() {
      const { call, lines, services } = yield* serveAdmin
      const authenticate = (secret: string) =>
        Effect.flatMap(ApiKeyAuth.ApiKeyAuth, (auth) => auth.authenticate(secret)).pipe(
          Effect.match({ onFailure: (error) => error._tag === "Unauthorized" ? error.reason : "store", onSuccess: (p) => p.keyId }),
          Effect.provide(services)
        )
      const expiresAt = new Date(Date.now() + 1_500).toISOString()
      const expiring = yield* call("POST", "/admin/v1/keys", { body: JSON.stringify({ plan: "free", expiresAt, window: "sliding" }) })
      expect(expiring.status).toBe(201)
      expect(expiring.body.key).toMatchObject({ state: "active", expiresAt, window: "sliding", previousSecret: null })
      expect(yield* authenticate(expiring.body.secret)).toBe(expiring.body.key.id)
      // Waits for the instant (a real clock here; core's contract moves a TestClock).
      yield* Effect.sleep(Math.max(0, Date.parse(expiresAt) - Date.now()) + 50)
      expect(yield* authenticate(expiring.body.secret)).toBe("expired")
      expect((yield* call("GET", `/admin/v1/keys/${expiring.body.key.id}`)).body).toMatchObject({ state: "expired", expiresAt })

      const past = yield* call("POST", "/admin/v1/keys", { body: JSON.stringify({ plan: "free", expiresAt: "2020-01-01T00:00:00Z" }) })
      expectError(past, 400, "invalid_request")
      expectError(yield* call("POST", "/admin/v1/keys", { body: JSON.stringify({ plan: "free", expiresAt: "tomorrow" }) }), 400, "invalid_request")
      expectError(yield* call("POST", "/admin/v1/keys", { body: JSON.stringify({ plan: "free", window: "rolling" }) }), 400, "invalid_request")

      const issued = yield* call("POST", "/admin/v1/keys", { body: JSON.stringify({ plan: "pro" }) })
      const id: string = issued.body.key.id
      const before = Date.now()
      const rotated = yield* call("POST", `/admin/v1/keys/${id}/rotate?graceSeconds=3600`)
      expect(rotated.status).toBe(200)
      expect(rotated.body.secret).not.toBe(issued.body.secret)
      expect(rotated.body.key).toMatchObject({ id, plan: "pro", prefix: rotated.body.secret.slice(0, 13) })
      expect(rotated.body.key.previousSecret.prefix).toBe(issued.body.key.prefix)
      const until = Date.parse(rotated.body.key.previousSecret.until)
      expect(until).toBeGreaterThanOrEqual(before + 3_600_000)
      expect(until).toBeLessThanOrEqual(Date.now() + 3_600_000)
      expect(yield* authenticate(issued.body.secret)).toBe(id)
      expect(yield* authenticate(rotated.body.secret)).toBe(id)
      // Without graceSeconds, 24 hours; with 0, the previous secret ends at once.
      const again = yield* call("POST", `/admin/v1/keys/${id}/rotate`)
      expect(Date.parse(again.body.key.previousSecret.until)).toBeGreaterThanOrEqual(before + 86_400_000)
      expect(yield* authenticate(issued.body.secret)).toBe("unknown")
      const atOnce = yield* call("POST", `/admin/v1/keys/${id}/rotate?graceSeconds=0`)
      expect(yield* authenticate(again.body.secret)).toBe("rotated")
      expect(yield* authenticate(atOnce.body.secret)).toBe(id)
      expectError(yield* call("POST", `/admin/v1/keys/${id}/rotate?graceSeconds=-1`), 400, "invalid_request")
      expectError(yield* call("POST", "/admin/v1/keys/key_nope/rotate"), 404, "not_found")
      yield* call("DELETE", `/admin/v1/keys/${id}`)
      expectError(yield* call("POST", `/admin/v1/keys/${id}/rotate`), 400, "invalid_request")
      expect(yield* authenticate(atOnce.body.secret)).toBe("revoked")

      const logged = JSON.stringify(lines)
      for (const secret of [issued, rotated, again, atOnce].map((reply) => reply.body.secret)) expect(logged).not.toContain(secret)
      expect(lines.filter((line) => line.annotations["admin.action"] === "rotateKey")).toHaveLength(3)
    }))
})
