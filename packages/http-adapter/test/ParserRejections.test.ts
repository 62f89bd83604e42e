/**
 * Requests refused before they reach a route, sent on raw sockets to the
 * adapter's Node listeners on the hardened server: those Node's HTTP parser
 * rejects, the ambiguous ones of decisions.md (no `Host` in HTTP/1.1, a
 * repeated `Host`, `Authorization`, `Content-Length` or `Content-Type`, in
 * either order), an `Expect` other than `100-continue` (417) and `CONNECT`
 * (405). Each gets an `Error` body with the rate-limit headers of its client
 * address's bucket (and counts in it), and its connection is closed; an
 * unknown but well-formed method is a 405 with `Allow` on a known path. A
 * body with a `Content-Encoding` other than `identity` is a 415.
 */
import { MemoryStore } from "@animal-store/memory-store"
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as RawSocket from "./support/RawSocket.js"
import { start } from "./support/TestServer.js"

const expectAddressBucket = (response: RawSocket.RawResponse, remaining: number) => {
  expect(response.headers["x-ratelimit-limit"]).toBe("5")
  expect(response.headers["x-ratelimit-remaining"]).toBe(String(remaining))
  expect(response.headers["x-ratelimit-reset"]).toMatch(/^[0-9]+$/)
  expect(response.headers["ratelimit-policy"]).toBe("\"minute\";q=5;w=60")
  expect(response.headers["ratelimit"]).toMatch(/^"minute";r=\d+;t=\d+$/)
  expect(response.headers["connection"]).toBe("close")
  expect(response.headers["content-type"]).toBe("application/json; charset=utf-8")
}

const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

/** The key of `keyed` cases: a valid one, so that a refusal shows it was not the key's. */
const secret = "ask_live_parserrejections0000000"

const post = (headers: string, body = "{\"name\":\"Rex\",\"categoryId\":1}") =>
  `POST /v1/pets HTTP/1.1\r\nHost: x\r\n${headers}Content-Length: ${body.length}\r\n\r\n${body}`

/** Refused by the listeners, not the parser: [name, request, status, code, what the message names]. */
const refusals: ReadonlyArray<readonly [string, string, number, string, RegExp]> = [
  ["an HTTP/1.1 request without Host", "GET /v1/pets HTTP/1.1\r\n\r\n", 400, "invalid_request", /Host/],
  ["two Host headers", "GET /v1/pets HTTP/1.1\r\nHost: a\r\nhost: b\r\n\r\n", 400, "invalid_request", /Host/],
  [
    "a valid then a bogus Authorization",
    `GET /v1/pets HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${secret}\r\nAuthorization: Bearer bogus\r\n\r\n`,
    400,
    "invalid_request",
    /Authorization/
  ],
  [
    "a bogus then a valid Authorization",
    `GET /v1/pets HTTP/1.1\r\nHost: x\r\nAUTHORIZATION: Bearer bogus\r\nauthorization: Bearer ${secret}\r\n\r\n`,
    400,
    "invalid_request",
    /Authorization/
  ],
  [
    "two Content-Type headers, JSON first",
    post(`Authorization: Bearer ${secret}\r\nContent-Type: application/json\r\nContent-Type: text/plain\r\n`),
    400,
    "invalid_request",
    /Content-Type/
  ],
  [
    "two Content-Type headers, JSON last",
    post(`Authorization: Bearer ${secret}\r\ncontent-type: text/plain\r\nContent-Type: application/json\r\n`),
    400,
    "invalid_request",
    /Content-Type/
  ],
  ["Expect: foo", "GET /v1/pets HTTP/1.1\r\nHost: x\r\nExpect: foo\r\n\r\n", 417, "expectation_failed", /100-continue/],
  [
    "Expect: 100-continue with another expectation",
    post(`Authorization: Bearer ${secret}\r\nContent-Type: application/json\r\nExpect: 100-continue, foo\r\n`, ""),
    417,
    "expectation_failed",
    /100-continue/
  ],
  ["Expect: foo in HTTP/1.0", "GET /v1/pets HTTP/1.0\r\nExpect: foo\r\n\r\n", 417, "expectation_failed", /100-continue/]
]

const cases: ReadonlyArray<readonly [string, string | Buffer, number, string]> = [
  ["an unknown method on a known path", "FOO /v1/pets HTTP/1.1\r\nHost: x\r\n\r\n", 405, "method_not_allowed"],
  ["an unknown method on an unknown path", "FOO /v1/nothing HTTP/1.1\r\nHost: x\r\n\r\n", 404, "not_found"],
  [
    "conflicting Content-Length and Transfer-Encoding",
    "POST /v1/pets HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
    400,
    "invalid_request"
  ],
  [
    "two Content-Length headers of the same value",
    post(`Authorization: Bearer ${secret}\r\nContent-Type: application/json\r\nContent-Length: 31\r\n`),
    400,
    "invalid_request"
  ],
  ["a NUL in the path", Buffer.from("GET /v1/pe\u0000ts HTTP/1.1\r\nHost: x\r\n\r\n", "latin1"), 400, "invalid_request"],
  ["40 KB of headers", `GET /v1/pets HTTP/1.1\r\nHost: x\r\nX-Padding: ${"a".repeat(40_000)}\r\n\r\n`, 400, "invalid_request"],
  ["not HTTP at all", "HELLO\r\n\r\n", 400, "invalid_request"]
]

describe("requests the parser rejects", () => {
  for (const [name, raw, status, code] of cases) {
    it.scoped(`${name}: ${status} ${code} with the client address's rate-limit headers, counted`, () =>
      Effect.gen(function*() {
        const api = yield* start({ ports: MemoryStore.layer, access: { anonymousPerMinute: 5 } })
        const first = yield* RawSocket.exchange(api.origin, raw)
        expect(first.status).toBe(status)
        expect(JSON.parse(first.body)).toMatchObject({ code, status })
        expectAddressBucket(first, 4)
        expect(first.headers["x-request-id"]).toMatch(uuid)
        if (status === 405) expect(first.headers["allow"]).toBe("GET, HEAD, OPTIONS, POST")
        // counted: the next rejection, and the next ordinary request, see one less
        expectAddressBucket(yield* RawSocket.exchange(api.origin, raw), 3)
        const after = yield* api.request("/v1/pets")
        expect(after.headers.get("x-ratelimit-remaining")).toBe("2")
      }))
  }

  it.scoped("CONNECT: 405 with Allow (every method served), in the address's bucket, connection closed", () =>
    Effect.gen(function*() {
      const api = yield* start({ ports: MemoryStore.layer, access: { anonymousPerMinute: 5 } })
      for (const [target, remaining] of [["127.0.0.1:80", 4], ["/v1/pets", 3]] as const) {
        const connection = yield* RawSocket.connect(api.origin)
        yield* connection.write(`CONNECT ${target} HTTP/1.1\r\nHost: ${target}\r\n\r\n`)
        const response = yield* connection.next
        expect(response.status).toBe(405)
        expect(JSON.parse(response.body)).toMatchObject({ code: "method_not_allowed", status: 405 })
        expect(response.headers["allow"]).toBe("GET, HEAD, OPTIONS, POST")
        expect(response.headers["x-request-id"]).toMatch(uuid)
        expectAddressBucket(response, remaining)
        yield* waitUntil(connection.closed)
      }
      const after = yield* api.request("/v1/pets")
      expect(after.headers.get("x-ratelimit-remaining")).toBe("2")
    }))

  it.scoped("over the address's limit they are still answered, with nothing remaining", () =>
    Effect.gen(function*() {
      const api = yield* start({ ports: MemoryStore.layer, access: { anonymousPerMinute: 5 } })
      for (let i = 0; i < 5; i++) yield* api.request("/v1/openapi.json")
      const response = yield* RawSocket.exchange(api.origin, "HELLO\r\n\r\n")
      expect(response.status).toBe(400)
      expect(response.headers["x-ratelimit-remaining"]).toBe("0")
    }))
})

/** Polls `done` every 10 ms (real time: the tests' clock is the TestClock) for up to 5 s. */
const waitUntil = (done: () => boolean) =>
  Effect.promise(async () => {
    for (let i = 0; i < 500 && !done(); i++) await new Promise((resolve) => setTimeout(resolve, 10))
    expect(done()).toBe(true)
  })

describe("ambiguous requests and unsupported expectations", () => {
  for (const [name, raw, status, code, names] of refusals) {
    it.scoped(`${name}: ${status} ${code} in the client address's bucket, not the key's, counted, closed`, () =>
      Effect.gen(function*() {
        const api = yield* start({ ports: MemoryStore.layer, access: { anonymousPerMinute: 5 } })
        const key = yield* api.issue("pro")
        const keyed = raw.replaceAll(secret, key.secret)
        const connection = yield* RawSocket.connect(api.origin)
        yield* connection.write(keyed)
        const first = yield* connection.next
        expect(first.status).toBe(status)
        const body = JSON.parse(first.body)
        expect(body).toMatchObject({ code, status })
        expect(body.message).toMatch(names)
        expectAddressBucket(first, 4)
        yield* waitUntil(connection.closed)
        expectAddressBucket(yield* RawSocket.exchange(api.origin, keyed), 3)
        expect((yield* api.request("/v1/pets")).headers.get("x-ratelimit-remaining")).toBe("2")
        // the key was never admitted: nothing counted, nothing stored
        const listed = yield* api.request("/v1/pets", { headers: { authorization: `Bearer ${key.secret}` } })
        expect(listed.headers.get("x-ratelimit-remaining")).toBe("299")
        expect(yield* Effect.promise(() => listed.json())).toEqual([])
      }))
  }

  it.scoped("HTTP/1.0 without Host, and Expect: 100-continue in HTTP/1.0, are served", () =>
    Effect.gen(function*() {
      const api = yield* start({ ports: MemoryStore.layer, access: { anonymousPerMinute: 5 } })
      const plain = yield* RawSocket.exchange(api.origin, "GET /v1/pets HTTP/1.0\r\n\r\n")
      expect(plain.status).toBe(401)
      const expecting = yield* RawSocket.exchange(api.origin, "GET /v1/pets HTTP/1.0\r\nExpect: 100-continue\r\n\r\n")
      expect(expecting.status).toBe(401)
      expectAddressBucket({ ...expecting, headers: { ...expecting.headers, connection: "close" } }, 3)
    }))

  it.scoped("a body with a Content-Encoding other than identity is a 415 in the key's bucket, stored nothing", () =>
    Effect.gen(function*() {
      const api = yield* start({ ports: MemoryStore.layer, access: { anonymousPerMinute: 5 } })
      const key = yield* api.issue("pro")
      const headers = `Authorization: Bearer ${key.secret}\r\nContent-Type: application/json\r\n`
      for (const encoding of ["gzip", "GZIP", "identity, gzip", "br"]) {
        const refused = yield* RawSocket.exchange(api.origin, post(`${headers}Content-Encoding: ${encoding}\r\n`))
        expect(refused.status).toBe(415)
        expect(JSON.parse(refused.body)).toMatchObject({ code: "unsupported_media_type", status: 415 })
        expect(JSON.parse(refused.body).message).toMatch(/Content-Encoding/)
        expect(refused.headers["x-ratelimit-limit"]).toBe("300")
      }
      // with Expect: 100-continue the refusal comes instead of 100 Continue
      const connection = yield* RawSocket.connect(api.origin)
      yield* connection.write(post(`${headers}Content-Encoding: gzip\r\nExpect: 100-continue\r\n`, "").replace(
        "Content-Length: 0",
        "Content-Length: 31"
      ))
      const early = yield* connection.next
      expect(early.status).toBe(415)
      expect(early.headers["x-ratelimit-remaining"]).toBe("295")
      const listed = yield* api.request("/v1/pets", { headers: { authorization: `Bearer ${key.secret}` } })
      expect(yield* Effect.promise(() => listed.json())).toEqual([])
      for (const encoding of ["identity", "Identity"]) {
        const created = yield* RawSocket.exchange(api.origin, post(`${headers}Content-Encoding: ${encoding}\r\n`))
        expect(created.status).toBe(201)
      }
    }))
})
