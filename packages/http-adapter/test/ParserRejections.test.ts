/**
 * Requests Node's HTTP parser rejects, sent on raw sockets to the adapter's
 * Node listeners on the hardened server: each gets an `Error` body with the
 * rate-limit headers of its client address's bucket (and counts in it); an
 * unknown but well-formed method is a 405 with `Allow` on a known path.
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

const cases: ReadonlyArray<readonly [string, string | Buffer, number, string]> = [
  ["an unknown method on a known path", "FOO /v1/pets HTTP/1.1\r\nHost: x\r\n\r\n", 405, "method_not_allowed"],
  ["an unknown method on an unknown path", "FOO /v1/nothing HTTP/1.1\r\nHost: x\r\n\r\n", 404, "not_found"],
  [
    "conflicting Content-Length and Transfer-Encoding",
    "POST /v1/pets HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
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
        if (status === 405) expect(first.headers["allow"]).toBe("GET, HEAD, OPTIONS, POST")
        // counted: the next rejection, and the next ordinary request, see one less
        expectAddressBucket(yield* RawSocket.exchange(api.origin, raw), 3)
        const after = yield* api.request("/v1/pets")
        expect(after.headers.get("x-ratelimit-remaining")).toBe("2")
      }))
  }

  it.scoped("over the address's limit they are still answered, with nothing remaining", () =>
    Effect.gen(function*() {
      const api = yield* start({ ports: MemoryStore.layer, access: { anonymousPerMinute: 5 } })
      for (let i = 0; i < 5; i++) yield* api.request("/v1/openapi.json")
      const response = yield* RawSocket.exchange(api.origin, "HELLO\r\n\r\n")
      expect(response.status).toBe(400)
      expect(response.headers["x-ratelimit-remaining"]).toBe("0")
    }))
})
