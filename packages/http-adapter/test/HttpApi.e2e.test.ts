import { describe, expect, it } from "@effect/vitest"
import { Effect, TestClock } from "effect"
import * as Http from "node:http"
import { bearer, json, jsonBody, portsOf, start, storeKinds } from "./support/TestServer.js"
import type { TestServer } from "./support/TestServer.js"

const rateLimitFields = ["x-ratelimit-limit", "x-ratelimit-remaining", "x-ratelimit-reset", "ratelimit-policy", "ratelimit"]

const expectRateLimitFields = (response: Response, windows: ReadonlyArray<string>) => {
  for (const field of rateLimitFields) expect(response.headers.get(field), field).not.toBeNull()
  const policy = response.headers.get("ratelimit-policy")!.split(", ")
  expect(policy.map((item) => item.split(";")[0])).toEqual(windows.map((w) => `"${w}"`))
  expect(response.headers.get("ratelimit")!.split(", ")).toHaveLength(windows.length)
}

const expectError = (response: Response, status: number, code: string) =>
  Effect.gen(function*() {
    expect(response.status).toBe(status)
    expect(response.headers.get("content-type")).toBe("application/json; charset=utf-8")
    const body = yield* json(response)
    expect(body).toMatchObject({ code, status })
    expect(typeof body.message).toBe("string")
    return body
  })

const createPets = (server: TestServer, secret: string, pets: ReadonlyArray<object>) =>
  Effect.forEach(pets, (pet) => Effect.flatMap(server.request("/v1/pets", jsonBody(secret, pet)), json))

/** Sends headers (with `declared` as Content-Length, if given) and `size` bytes of a JSON body, without ending the request. */
const sendUnfinished = (origin: string, secret: string, size: number, declared?: number) =>
  Effect.async<number>((resume) => {
    const url = new URL("/v1/pets", origin)
    const request = Http.request(url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        ...bearer(secret),
        ...(declared === undefined ? {} : { "content-length": declared })
      }
    }, (response) => {
      response.resume()
      resume(Effect.succeed(response.statusCode ?? 0))
      request.destroy()
    })
    request.on("error", () => {})
    if (size > 0) request.write("[" + " ".repeat(size - 1))
    else request.flushHeaders()
    return Effect.sync(() => request.destroy())
  })

describe.each(storeKinds)("HTTP API over a real port, %s store", (kind) => {
  const server = (options?: Omit<Parameters<typeof start>[0], "ports">) =>
    Effect.flatMap(portsOf(kind), (ports) => start({ ports, ...options }))

  it.scoped("creates, lists page by page with Link next, and reads an animal with deprecation headers", () =>
    Effect.gen(function*() {
      const api = yield* server()
      const { secret } = yield* api.issue("pro")
      const created = yield* api.request("/v1/pets", jsonBody(secret, { name: "  Rex ", categoryId: 7 }))
      expect(created.status).toBe(201)
      expect(created.headers.get("location")).toBe("/v1/pets/1")
      expect(yield* json(created)).toEqual({ id: 1, name: "Rex", categoryId: 7, status: "available" })
      yield* createPets(api, secret, [
        { name: "B", categoryId: 1, status: "sold" },
        { name: "C", categoryId: 1 },
        { name: "D", categoryId: 1, status: "sold" },
        { name: "E", categoryId: 1 }
      ])

      const seen: Array<number> = []
      let next: string | undefined = "/v1/pets?limit=2"
      while (next !== undefined) {
        const page: Response = yield* api.request(next, { headers: bearer(secret) })
        expect(page.status).toBe(200)
        const pets: Array<{ id: number }> = yield* json(page)
        expect(pets.length).toBeLessThanOrEqual(2)
        seen.push(...pets.map((pet) => pet.id))
        const link = page.headers.get("link")
        next = link === null ? undefined : /^<([^>]+)>; rel="next"$/.exec(link)![1]
      }
      expect(seen).toEqual([1, 2, 3, 4, 5])

      const sold = yield* api.request("/v1/pets?status=sold&limit=1", { headers: bearer(secret) })
      expect((yield* json(sold)).map((pet: { id: number }) => pet.id)).toEqual([2])
      expect(sold.headers.get("link")).toMatch(/^<\/v1\/pets\?limit=1&status=sold&cursor=[^>]+>; rel="next"$/)

      const one = yield* api.request("/v1/pets/1", { headers: bearer(secret) })
      expect(one.status).toBe(200)
      expect(yield* json(one)).toEqual({ id: 1, name: "Rex", categoryId: 7, status: "available" })
      expect(one.headers.get("deprecation")).toMatch(/^@\d+$/)
      expect(one.headers.get("sunset")).toBe("Thu, 05 Dec 2030 00:00:00 GMT")
      expect(one.headers.get("link")).toBe("</v1/pets>; rel=\"successor-version\"")
    }))

  it.scoped("every response carries the rate-limit fields, and Remaining counts the current request", () =>
    Effect.gen(function*() {
      const api = yield* server()
      const { secret } = yield* api.issue("free")
      const responses = [
        yield* api.request("/v1/pets", { headers: bearer(secret) }),
        yield* api.request("/v1/pets", jsonBody(secret, { name: "A", categoryId: 1 })),
        yield* api.request("/v1/pets", jsonBody(secret, { categoryId: 1 })),
        yield* api.request("/v1/pets/99", { headers: bearer(secret) }),
        yield* api.request("/store/orders", { headers: bearer(secret) }),
        yield* api.request("/v1/pets", { method: "DELETE", headers: bearer(secret) }),
        yield* api.request("/v1/openapi.json", { headers: bearer(secret) })
      ]
      expect(responses.map((r) => r.status)).toEqual([200, 201, 400, 404, 404, 405, 200])
      responses.forEach((response, i) => {
        expectRateLimitFields(response, ["minute", "day"])
        expect(response.headers.get("x-ratelimit-limit")).toBe("60")
        expect(response.headers.get("x-ratelimit-remaining")).toBe(String(59 - i))
      })
      expect(responses[0]!.headers.get("ratelimit-policy")).toBe("\"minute\";q=60;w=60, \"day\";q=1000;w=86400")
      expect(responses[0]!.headers.get("ratelimit")).toBe("\"minute\";r=59;t=60, \"day\";r=999;t=86400")
      expect(responses[0]!.headers.get("x-ratelimit-reset")).toBe("60")

      const anonymous = [
        yield* api.request("/v1/pets"),
        yield* api.request("/v1/openapi.json"),
        yield* api.request("/nowhere")
      ]
      expect(anonymous.map((r) => r.status)).toEqual([401, 200, 404])
      anonymous.forEach((response, i) => {
        expectRateLimitFields(response, ["minute"])
        expect(response.headers.get("x-ratelimit-remaining")).toBe(String(59 - i))
      })
    }))

  it.scoped("401 with WWW-Authenticate for a missing, foreign-scheme, unknown, revoked or other-environment key", () =>
    Effect.gen(function*() {
      const api = yield* server()
      const missing = yield* api.request("/v1/pets")
      yield* expectError(missing, 401, "unauthorized")
      expect(missing.headers.get("www-authenticate")).toBe("Bearer realm=\"animal-store\"")
      const basic = yield* api.request("/v1/pets", { headers: { authorization: "Basic dXNlcjpwYXNz" } })
      yield* expectError(basic, 401, "unauthorized")
      expect(basic.headers.get("www-authenticate")).toBe("Bearer realm=\"animal-store\"")

      const invalid = "Bearer realm=\"animal-store\", error=\"invalid_token\""
      const unknown = yield* api.request("/v1/pets", { headers: bearer("ask_live_0000000000000000000000") })
      yield* expectError(unknown, 401, "unauthorized")
      expect(unknown.headers.get("www-authenticate")).toBe(invalid)

      const staging = yield* api.issue("free", { environment: "staging" })
      const wrongEnvironment = yield* api.request("/v1/pets", { headers: bearer(staging.secret) })
      yield* expectError(wrongEnvironment, 401, "unauthorized")
      expect(wrongEnvironment.headers.get("www-authenticate")).toBe(invalid)

      const key = yield* api.issue("free")
      expect((yield* api.request("/v1/pets", { headers: { authorization: `bearer ${key.secret}` } })).status).toBe(200)
      yield* api.revoke(key.id)
      const revoked = yield* api.request("/v1/pets", { headers: bearer(key.secret) })
      yield* expectError(revoked, 401, "unauthorized")
    }))

  it.scoped("a request without a valid key gets 401 before its body is looked at", () =>
    Effect.gen(function*() {
      const api = yield* server()
      const wrongType = yield* api.request("/v1/pets", { method: "POST", headers: { "content-type": "text/plain" }, body: "x" })
      yield* expectError(wrongType, 401, "unauthorized")
      const tooLarge = yield* api.request("/v1/pets", jsonBody(undefined, "x".repeat(70_000)))
      yield* expectError(tooLarge, 401, "unauthorized")
      const malformed = yield* api.request("/v1/pets", jsonBody("ask_live_unknown0000000000000", "{"))
      yield* expectError(malformed, 401, "unauthorized")
    }))

  it.scoped("415 without application/json, 400 for malformed JSON, 400 with details for invalid fields", () =>
    Effect.gen(function*() {
      const api = yield* server()
      const { secret } = yield* api.issue("pro")
      const noType = yield* api.request("/v1/pets", { method: "POST", headers: bearer(secret), body: "{}" })
      yield* expectError(noType, 415, "unsupported_media_type")
      const text = yield* api.request("/v1/pets", {
        method: "POST",
        headers: { ...bearer(secret), "content-type": "text/plain" },
        body: "{}"
      })
      yield* expectError(text, 415, "unsupported_media_type")
      const withCharset = yield* api.request("/v1/pets", {
        method: "POST",
        headers: { ...bearer(secret), "content-type": "Application/JSON; charset=utf-8" },
        body: JSON.stringify({ name: "A", categoryId: 1 })
      })
      expect(withCharset.status).toBe(201)

      yield* expectError(yield* api.request("/v1/pets", jsonBody(secret, "{\"name\":")), 400, "invalid_request")
      yield* expectError(yield* api.request("/v1/pets", jsonBody(secret, "")), 400, "invalid_request")

      const invalid = yield* expectError(
        yield* api.request("/v1/pets", jsonBody(secret, { id: 5, name: "", categoryId: 2 ** 53 })),
        400,
        "invalid_request"
      )
      expect(invalid.details.map((detail: { path: string }) => detail.path).sort()).toEqual(["categoryId", "id", "name"])
      const list = yield* api.request("/v1/pets", { headers: bearer(secret) })
      expect((yield* json(list)).length).toBe(1)
    }))

  it.scoped("a body of 65,536 bytes is accepted; 65,537 is 413, also when it streams in without an end or is only declared", () =>
    Effect.gen(function*() {
      const api = yield* server()
      const { secret } = yield* api.issue("pro")
      const pet = JSON.stringify({ name: "Big", categoryId: 1 })
      const exact = yield* api.request("/v1/pets", jsonBody(secret, pet + " ".repeat(65_536 - pet.length)))
      expect(exact.status).toBe(201)
      const over = yield* api.request("/v1/pets", jsonBody(secret, pet + " ".repeat(65_537 - pet.length)))
      yield* expectError(over, 413, "payload_too_large")
      expect(yield* sendUnfinished(api.origin, secret, 70_000)).toBe(413)
      expect(yield* sendUnfinished(api.origin, secret, 0, 65_537)).toBe(413)
    }))

  it.scoped("query and path rules: limit bounds, status values, unknown parameters, malformed and unknown ids", () =>
    Effect.gen(function*() {
      const api = yield* server()
      const { secret } = yield* api.issue("pro")
      yield* createPets(api, secret, [{ name: "A", categoryId: 1 }])
      const refused = [
        "limit=0",
        "limit=101",
        "limit=abc",
        "limit=1&limit=2",
        "status=sold&status=sold&status=sold",
        "status=lost",
        "cursor=nope"
      ]
      for (const query of refused) {
        yield* expectError(yield* api.request(`/v1/pets?${query}`, { headers: bearer(secret) }), 400, "invalid_request")
      }
      const ignored = yield* api.request("/v1/pets?limit=100&color=red", { headers: bearer(secret) })
      expect(ignored.status).toBe(200)
      for (const id of ["abc", "0", "-1", "1.5", "9007199254740992"]) {
        yield* expectError(yield* api.request(`/v1/pets/${id}`, { headers: bearer(secret) }), 400, "invalid_request")
      }
      const missing = yield* api.request("/v1/pets/2", { headers: bearer(secret) })
      yield* expectError(missing, 404, "not_found")
      expect(missing.headers.get("sunset")).toBe("Thu, 05 Dec 2030 00:00:00 GMT")
    }))

  it.scoped("404 for unknown routes and /store/orders, 405 with Allow for other methods", () =>
    Effect.gen(function*() {
      const api = yield* server()
      const { secret } = yield* api.issue("pro")
      for (const path of ["/store/orders", "/v1/store/orders", "/v2/pets", "/v1/pets/1/x", "/v1/pets/", "/"]) {
        yield* expectError(yield* api.request(path, { headers: bearer(secret) }), 404, "not_found")
      }
      const cases: ReadonlyArray<readonly [string, string, string]> = [
        ["DELETE", "/v1/pets", "GET, HEAD, OPTIONS, POST"],
        ["PUT", "/v1/pets/1", "GET, HEAD, OPTIONS"],
        ["POST", "/v1/pets/1", "GET, HEAD, OPTIONS"],
        ["PATCH", "/v1/pets", "GET, HEAD, OPTIONS, POST"],
        ["POST", "/v1/openapi.json", "GET, HEAD, OPTIONS"]
      ]
      for (const [method, path, allow] of cases) {
        const response = yield* api.request(path, { method, headers: bearer(secret) })
        expect(response.status, `${method} ${path}`).toBe(405)
        expect(response.headers.get("allow")).toBe(allow)
        yield* expectError(response, 405, "method_not_allowed")
      }
    }))

  it.scoped("429 rate_limited with Retry-After over a window, then api_key_banned after banAfter refusals", () =>
    Effect.gen(function*() {
      const api = yield* server({ access: { banAfter: 2, banSeconds: 600 } })
      const { secret } = yield* api.issue("enterprise", { limits: { perMinute: 3, perDay: 100 } })
      yield* TestClock.setTime(20_000)
      const statuses: Array<number> = []
      for (let i = 0; i < 3; i++) {
        const response = yield* api.request("/v1/pets", { headers: bearer(secret) })
        statuses.push(response.status)
        expect(response.headers.get("x-ratelimit-remaining")).toBe(String(2 - i))
      }
      expect(statuses).toEqual([200, 200, 200])
      for (let i = 0; i < 2; i++) {
        const refused = yield* api.request("/v1/pets", { headers: bearer(secret) })
        yield* expectError(refused, 429, "rate_limited")
        expect(refused.headers.get("retry-after")).toBe("40")
        expect(refused.headers.get("x-ratelimit-remaining")).toBe("0")
      }
      const banned = yield* api.request("/v1/pets", { headers: bearer(secret) })
      yield* expectError(banned, 429, "api_key_banned")
      expect(banned.headers.get("retry-after")).toBe("600")
      yield* TestClock.adjust("2 minutes")
      yield* expectError(yield* api.request("/v1/pets", { headers: bearer(secret) }), 429, "api_key_banned")
    }))

  it.scoped("requests without a valid key are limited per client address", () =>
    Effect.gen(function*() {
      const api = yield* server({ access: { anonymousPerMinute: 2 } })
      expect((yield* api.request("/v1/pets")).status).toBe(401)
      expect((yield* api.request("/v1/openapi.json")).status).toBe(200)
      const refused = yield* api.request("/v1/pets", { headers: bearer("ask_live_guess000000000000000") })
      yield* expectError(refused, 429, "rate_limited")
      expect(refused.headers.get("retry-after")).toBe("60")
      const { secret } = yield* api.issue("free")
      expect((yield* api.request("/v1/pets", { headers: bearer(secret) })).status).toBe(200)
    }))

  it.scoped("getPet answers 410 gone with the deprecation headers from the sunset instant on", () =>
    Effect.gen(function*() {
      const api = yield* server()
      const { secret } = yield* api.issue("pro")
      yield* createPets(api, secret, [{ name: "A", categoryId: 1 }])
      yield* TestClock.setTime(Date.parse("2030-12-04T23:59:59Z"))
      expect((yield* api.request("/v1/pets/1", { headers: bearer(secret) })).status).toBe(200)
      yield* TestClock.adjust("1 second")
      const gone = yield* api.request("/v1/pets/1", { headers: bearer(secret) })
      yield* expectError(gone, 410, "gone")
      expect(gone.headers.get("sunset")).toBe("Thu, 05 Dec 2030 00:00:00 GMT")
      expect(gone.headers.get("deprecation")).toMatch(/^@\d+$/)
      expect(gone.headers.get("link")).toBe("</v1/pets>; rel=\"successor-version\"")
      expectRateLimitFields(gone, ["minute", "day"])
      expect((yield* api.request("/v1/pets", { headers: bearer(secret) })).status).toBe(200)
    }))

  it.scoped("serves the OpenAPI document and its reference page without a key", () =>
    Effect.gen(function*() {
      const api = yield* server({ adapter: { servers: { production: "https://api.example.com/v1", staging: "https://staging.example.com/v1" } } })
      const document = yield* api.request("/v1/openapi.json")
      expect(document.status).toBe(200)
      const spec = yield* json(document)
      expect(spec.info.version).toBe("1.0.0")
      expect(spec.servers.map((server: { url: string }) => server.url)).toEqual([
        "https://api.example.com/v1",
        "https://staging.example.com/v1"
      ])
      const page = yield* api.request("/v1/docs")
      expect(page.status).toBe(200)
      expect(page.headers.get("content-type")).toContain("text/html")
      expect(yield* Effect.promise(() => page.text())).toContain("api-reference")
      expectRateLimitFields(page, ["minute"])
    }))
})
