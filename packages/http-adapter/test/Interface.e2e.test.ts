/**
 * HTTP as HTTP, over a real port: HEAD and OPTIONS, CORS, `Location` and
 * `Link` under the base URL's path, absolute-form targets,
 * `Expect: 100-continue`, cursors bound to their listing, the ban's headers,
 * the servers of the document, and its compressed, cacheable documents.
 * Every response `api.request` receives is also checked against the document.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, TestClock } from "effect"
import { gunzipSync } from "node:zlib"
import * as RawSocket from "./support/RawSocket.js"
import { bearer, json, jsonBody, portsOf, start, storeKinds } from "./support/TestServer.js"

describe.each(storeKinds)("HTTP behaviour, %s store", (kind) => {
  const server = (options?: Omit<Parameters<typeof start>[0], "ports">) =>
    Effect.flatMap(portsOf(kind), (ports) => start({ ports, ...options }))

  it.scoped("HEAD answers every GET route with its status and headers, without a body, counted like the GET", () =>
    Effect.gen(function*() {
      const api = yield* server()
      const { secret } = yield* api.issue("pro")
      yield* api.request("/v1/pets", jsonBody(secret, { name: "A", categoryId: 1 }))
      for (const path of ["/v1/pets?limit=1", "/v1/pets/1", "/v1/openapi.json"]) {
        const get = yield* api.request(path, { headers: bearer(secret) })
        const head = yield* api.request(path, { method: "HEAD", headers: bearer(secret) })
        expect(head.status, path).toBe(get.status)
        expect(head.headers.get("content-type")).toBe(get.headers.get("content-type"))
        expect(head.headers.get("content-length")).toBe(get.headers.get("content-length"))
        expect(Number(head.headers.get("x-ratelimit-remaining"))).toBe(Number(get.headers.get("x-ratelimit-remaining")) - 1)
        expect(yield* Effect.promise(() => head.text())).toBe("")
      }
      const missing = yield* api.request("/v1/pets/99", { method: "HEAD", headers: bearer(secret) })
      expect(missing.status).toBe(404)
      expect((yield* api.request("/v1/pets/1", { method: "HEAD" })).status).toBe(401)
    }))

  it.scoped("OPTIONS answers 204 with Allow, needs no key and counts in the client address's bucket", () =>
    Effect.gen(function*() {
      const api = yield* server({ access: { anonymousPerMinute: 3 } })
      const { secret } = yield* api.issue("pro")
      const pets = yield* api.request("/v1/pets", { method: "OPTIONS" })
      expect(pets.status).toBe(204)
      expect(pets.headers.get("allow")).toBe("GET, HEAD, OPTIONS, POST")
      expect(pets.headers.get("x-ratelimit-remaining")).toBe("2")
      expect(pets.headers.get("access-control-allow-origin")).toBeNull()
      const pet = yield* api.request("/v1/pets/1", { method: "OPTIONS", headers: bearer(secret) })
      expect(pet.status).toBe(204)
      expect(pet.headers.get("allow")).toBe("GET, HEAD, OPTIONS")
      expect(pet.headers.get("x-ratelimit-limit")).toBe("3")
      expect(pet.headers.get("x-ratelimit-remaining")).toBe("1")
      const asterisk = yield* RawSocket.exchange(api.origin, "OPTIONS * HTTP/1.1\r\nHost: x\r\n\r\n")
      expect(asterisk.status).toBe(204)
      expect(asterisk.headers["allow"]).toBe("GET, HEAD, OPTIONS, POST")
      // the key's own bucket was not touched
      const listed = yield* api.request("/v1/pets", { headers: bearer(secret) })
      expect(listed.headers.get("x-ratelimit-remaining")).toBe("299")
    }))

  it.scoped("CORS, when enabled: allowed origins get Allow-Origin and the exposed headers; preflights need no key", () =>
    Effect.gen(function*() {
      const api = yield* server({ adapter: { corsOrigins: ["https://app.example.com"] } })
      const { secret } = yield* api.issue("pro")
      const preflight = yield* api.request("/v1/pets", {
        method: "OPTIONS",
        headers: {
          origin: "https://app.example.com",
          "access-control-request-method": "POST",
          "access-control-request-headers": "authorization, content-type"
        }
      })
      expect(preflight.status).toBe(204)
      expect(preflight.headers.get("access-control-allow-origin")).toBe("https://app.example.com")
      expect(preflight.headers.get("access-control-allow-methods")).toBe("GET, HEAD, OPTIONS, POST")
      expect(preflight.headers.get("access-control-allow-headers")).toMatch(/Authorization, Content-Type/)
      expect(preflight.headers.get("access-control-max-age")).toBe("600")
      expect(preflight.headers.get("vary")).toContain("Origin")

      const created = yield* api.request("/v1/pets", {
        ...jsonBody(secret, { name: "A", categoryId: 1 }),
        headers: { ...bearer(secret), "content-type": "application/json", origin: "https://app.example.com" }
      })
      expect(created.status).toBe(201)
      expect(created.headers.get("access-control-allow-origin")).toBe("https://app.example.com")
      const exposed = created.headers.get("access-control-expose-headers")!.split(", ")
      for (const name of ["X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset", "RateLimit", "Retry-After", "Deprecation", "Sunset", "Link", "Location"]) {
        expect(exposed).toContain(name)
      }
      const other = yield* api.request("/v1/pets", { headers: { ...bearer(secret), origin: "https://evil.example.com" } })
      expect(other.status).toBe(200)
      expect(other.headers.get("access-control-allow-origin")).toBeNull()

      const any = yield* server({ adapter: { corsOrigins: ["*"] } })
      const refused = yield* any.request("/v1/pets", { headers: { origin: "https://anywhere.example" } })
      expect(refused.status).toBe(401)
      expect(refused.headers.get("access-control-allow-origin")).toBe("*")
    }))

  it.scoped("Location and Link carry the path of the configured base URL", () =>
    Effect.gen(function*() {
      const api = yield* server({ adapter: { baseUrl: "https://api.example.com/animal/v1" } })
      const { secret } = yield* api.issue("pro")
      const created = yield* api.request("/v1/pets", jsonBody(secret, { name: "A", categoryId: 1 }))
      expect(created.headers.get("location")).toBe("/animal/v1/pets/1")
      yield* api.request("/v1/pets", jsonBody(secret, { name: "B", categoryId: 1 }))
      const page = yield* api.request("/v1/pets?limit=1", { headers: bearer(secret) })
      expect(page.headers.get("link")).toMatch(/^<\/animal\/v1\/pets\?limit=1&cursor=[^>]+>; rel="next"$/)
      const got = yield* api.request("/v1/pets/1", { headers: bearer(secret) })
      expect(got.headers.get("link")).toBe("</animal/v1/pets>; rel=\"successor-version\"")
    }))

  it.scoped("absolute-form request targets are accepted", () =>
    Effect.gen(function*() {
      const api = yield* server()
      const { secret } = yield* api.issue("pro")
      const host = new URL(api.origin).host
      const response = yield* RawSocket.exchange(
        api.origin,
        `GET ${api.origin}/v1/pets?limit=5 HTTP/1.1\r\nHost: ${host}\r\nAuthorization: Bearer ${secret}\r\n\r\n`
      )
      expect(response.status).toBe(200)
      expect(JSON.parse(response.body)).toEqual([])
      expect(response.headers["x-ratelimit-limit"]).toBe("300")
    }))

  it.scoped("Expect: 100-continue: a request that will be refused gets the refusal instead of 100 Continue", () =>
    Effect.gen(function*() {
      const api = yield* server({ access: { anonymousPerMinute: 100 } })
      const { secret } = yield* api.issue("pro")
      const head = (headers: string, length: number) =>
        `POST /v1/pets HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: ${length}\r\n${headers}\r\n`
      const refusals: ReadonlyArray<readonly [string, number]> = [
        [`Authorization: Bearer ${secret}\r\nContent-Type: application/json\r\n`, 413],
        [`Content-Type: application/json\r\n`, 401],
        [`Authorization: Bearer ${secret}\r\nContent-Type: text/plain\r\n`, 415]
      ]
      for (const [headers, status] of refusals) {
        const first = yield* RawSocket.exchange(api.origin, head(headers, status === 413 ? 1_000_000 : 30))
        expect(first.status).toBe(status)
      }
      // accepted: 100 Continue, then the body, then 201
      yield* Effect.scoped(Effect.gen(function*() {
        const body = JSON.stringify({ name: "A", categoryId: 1 })
        const connection = yield* RawSocket.connect(api.origin)
        yield* connection.write(head(`Authorization: Bearer ${secret}\r\nContent-Type: application/json\r\n`, body.length))
        expect((yield* connection.next).status).toBe(100)
        yield* connection.write(body)
        const created = yield* connection.next
        expect(created.status).toBe(201)
        expect(JSON.parse(created.body)).toEqual({ id: 1, name: "A", categoryId: 1, status: "available" })
      }))
    }))

  it.scoped("a cursor is bound to the status it was issued for; an altered one is a 400", () =>
    Effect.gen(function*() {
      const api = yield* server()
      const { secret } = yield* api.issue("pro")
      for (const name of ["A", "B", "C"]) yield* api.request("/v1/pets", jsonBody(secret, { name, categoryId: 1, status: "sold" }))
      const page = yield* api.request("/v1/pets?limit=1&status=sold", { headers: bearer(secret) })
      const next = /^<([^>]+)>/.exec(page.headers.get("link")!)![1]!
      expect((yield* api.request(next, { headers: bearer(secret) })).status).toBe(200)
      const cursor = new URL(next, "http://x").searchParams.get("cursor")!
      const foreign = yield* api.request(`/v1/pets?limit=1&status=pending&cursor=${cursor}`, { headers: bearer(secret) })
      expect(foreign.status).toBe(400)
      expect((yield* json(foreign)).details).toEqual([expect.objectContaining({ path: "cursor" })])
      const unfiltered = yield* api.request(`/v1/pets?limit=1&cursor=${cursor}`, { headers: bearer(secret) })
      expect(unfiltered.status).toBe(400)
      const altered = cursor.slice(0, -1) + (cursor.endsWith("A") ? "B" : "A")
      expect((yield* api.request(`/v1/pets?status=sold&cursor=${altered}`, { headers: bearer(secret) })).status).toBe(400)
      const guessed = `p1.${Buffer.from("1").toString("base64url")}`
      expect((yield* api.request(`/v1/pets?status=sold&cursor=${guessed}`, { headers: bearer(secret) })).status).toBe(400)
    }))

  it.scoped("while banned: X-RateLimit-Remaining 0, and Reset and RateLimit's t at the end of the ban, as Retry-After", () =>
    Effect.gen(function*() {
      const api = yield* server({ access: { banAfter: 1, banSeconds: 840 } })
      const { secret } = yield* api.issue("enterprise", { limits: { perMinute: 1, perDay: 100 } })
      yield* TestClock.setTime(1_000_000_000_000 + 2_500)
      expect((yield* api.request("/v1/pets", { headers: bearer(secret) })).status).toBe(200)
      expect((yield* api.request("/v1/pets", { headers: bearer(secret) })).status).toBe(429)
      const banned = yield* api.request("/v1/pets", { headers: bearer(secret) })
      expect((yield* json(banned)).code).toBe("api_key_banned")
      expect(banned.headers.get("retry-after")).toBe("840")
      expect(banned.headers.get("x-ratelimit-remaining")).toBe("0")
      const now = 1_000_000_000_000 + 2_500
      expect(Number(banned.headers.get("x-ratelimit-reset"))).toBe(Math.ceil((now + 840_000) / 1000))
      expect(banned.headers.get("ratelimit")).toBe("\"minute\";r=0;t=840, \"day\";r=0;t=840")
    }))
})

describe("the documents", () => {
  it.scoped("with no base address configured, the servers are the address listened on", () =>
    Effect.gen(function*() {
      const api = yield* start({ ports: (yield* portsOf("memory")) })
      const spec = yield* json(yield* api.request("/v1/openapi.json"))
      expect(spec.servers.map((server: { url: string }) => server.url)).toEqual([`${api.origin}/v1`, `${api.origin}/v1`])
      const partly = yield* start({ ports: (yield* portsOf("memory")), adapter: { servers: { production: "https://api.example.com/v1" } } })
      const partlySpec = yield* json(yield* partly.request("/v1/openapi.json"))
      expect(partlySpec.servers.map((server: { url: string }) => server.url)).toEqual([
        "https://api.example.com/v1",
        `${partly.origin}/v1`
      ])
    }))

  it.scoped("are compressed when accepted, with ETag and Cache-Control, and 304 when unchanged", () =>
    Effect.gen(function*() {
      const api = yield* start({ ports: (yield* portsOf("memory")), access: { anonymousPerMinute: 100 } })
      for (const path of ["/v1/docs", "/v1/openapi.json"]) {
        const plain = yield* RawSocket.exchange(api.origin, `GET ${path} HTTP/1.1\r\nHost: x\r\n\r\n`)
        expect(plain.status).toBe(200)
        expect(plain.headers["content-encoding"]).toBeUndefined()
        expect(plain.headers["cache-control"]).toBe("public, max-age=600")
        expect(plain.headers["vary"]).toContain("Accept-Encoding")
        const gzip = yield* Effect.promise(() =>
          new Promise<{ status: number; headers: Record<string, string>; body: Buffer }>((resolve) => {
            import("node:http").then((Http) => {
              Http.get(`${api.origin}${path}`, { headers: { "accept-encoding": "gzip" } }, (response) => {
                const chunks: Array<Buffer> = []
                response.on("data", (chunk) => chunks.push(chunk))
                response.on("end", () =>
                  resolve({ status: response.statusCode!, headers: response.headers as Record<string, string>, body: Buffer.concat(chunks) }))
              })
            })
          })
        )
        expect(gzip.headers["content-encoding"]).toBe("gzip")
        expect(gzip.body.length).toBeLessThan(plain.body.length / 2)
        expect(gunzipSync(gzip.body).toString("latin1")).toBe(plain.body)
        expect(gzip.headers["etag"]).not.toBe(plain.headers["etag"])
        const brotli = yield* api.request(path, { headers: { "accept-encoding": "br, gzip" } })
        expect(brotli.status).toBe(200)
        expect(brotli.headers.get("etag")).toMatch(/-br"$/)
        expect(yield* Effect.promise(() => brotli.text())).toBe(Buffer.from(plain.body, "latin1").toString()) // fetch decodes it
        const revalidated = yield* RawSocket.exchange(
          api.origin,
          `GET ${path} HTTP/1.1\r\nHost: x\r\nIf-None-Match: ${plain.headers["etag"]}\r\n\r\n`
        )
        expect(revalidated.status).toBe(304)
        expect(revalidated.body).toBe("")
        expect(revalidated.headers["x-ratelimit-remaining"]).toMatch(/^[0-9]+$/)
      }
    }))
})
