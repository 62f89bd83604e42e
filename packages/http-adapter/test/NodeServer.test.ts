import { MemoryStore } from "@animal-store/memory-store"
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import type * as Http from "node:http"
import * as NodeServer from "../src/NodeServer.js"
import { parseResponse, sendAtOnce } from "./support/SlowClient.js"
import { start } from "./support/TestServer.js"

/** Node keeps the `maxHeaderSize` option on the server; @types/node does not declare it. */
type NodeServer = Http.Server & { readonly maxHeaderSize?: number }

describe("the hardened Node server", () => {
  it.scoped("has header, header-time and request-time limits by default", () =>
    Effect.gen(function*() {
      const server = yield* Effect.acquireRelease(
        Effect.sync((): NodeServer => NodeServer.make()),
        (server) => Effect.sync(() => server.close())
      )
      expect(server.maxHeaderSize).toBe(16_384)
      expect(server.headersTimeout).toBe(10_000)
      expect(server.requestTimeout).toBe(30_000)
    }))

  it.scoped("answers headers over the size limit with a 400 Error body and closes the connection", () =>
    Effect.gen(function*() {
      const api = yield* start({ ports: MemoryStore.layer, limits: { maxHeaderSize: 4_096 } })
      const small = yield* api.request("/v1/openapi.json", { headers: { "x-padding": "a".repeat(2_000) } })
      expect(small.status).toBe(200)
      const response = yield* sendAtOnce(api.origin, `GET /v1/pets HTTP/1.1\r\nHost: x\r\nX-Padding: ${"a".repeat(8_000)}\r\n\r\n`)
      expect(response).toMatch(/connection: close/i)
      expect(parseResponse(response)).toEqual({
        statusLine: "HTTP/1.1 400 Bad Request",
        body: { code: "invalid_request", message: "The request headers are too large", status: 400 }
      })
    }))

  it.scoped("answers headers that do not arrive in time with a 400 Error body", () =>
    Effect.gen(function*() {
      const api = yield* start({ ports: MemoryStore.layer, limits: { headersTimeout: 300, requestTimeout: 1_000 } })
      const response = yield* sendAtOnce(api.origin, "GET /v1/pets HTTP/1.1\r\nHost: x\r\n")
      expect(parseResponse(response)).toEqual({
        statusLine: "HTTP/1.1 400 Bad Request",
        body: { code: "invalid_request", message: "The request was not received in time", status: 400 }
      })
    }))

  it.scoped("answers a request that is not HTTP with a 400 Error body", () =>
    Effect.gen(function*() {
      const api = yield* start({ ports: MemoryStore.layer })
      const response = yield* sendAtOnce(api.origin, "HELLO\r\n\r\n")
      expect(parseResponse(response).body).toMatchObject({ code: "invalid_request", status: 400 })
    }))
})
