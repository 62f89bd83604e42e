import { MemoryStore } from "@animal-store/memory-store"
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as Net from "node:net"
import * as StandaloneServer from "../src/StandaloneServer.js"
import { start } from "./support/TestServer.js"

/** Writes `text` on a raw connection and resolves with everything the server sends until it closes. */
const raw = (origin: string, text: string) =>
  Effect.async<string>((resume) => {
    const url = new URL(origin)
    const socket = Net.connect(Number(url.port), url.hostname, () => socket.write(text))
    let received = ""
    socket.on("data", (chunk) => (received += chunk.toString()))
    socket.on("close", () => resume(Effect.succeed(received)))
    socket.on("error", () => {})
    return Effect.sync(() => socket.destroy())
  })

const bodyOf = (response: string) => JSON.parse(response.slice(response.indexOf("\r\n\r\n") + 4))

describe("the standalone server's hardening", () => {
  it("has header, header-time and request-time limits by default", () => {
    const server = StandaloneServer.createNodeServer()
    expect(server.headersTimeout).toBe(StandaloneServer.defaultLimits.headersTimeout)
    expect(server.requestTimeout).toBe(StandaloneServer.defaultLimits.requestTimeout)
    expect(StandaloneServer.defaultLimits.maxHeaderSize).toBe(16_384)
  })

  it.scoped("answers headers over the size limit with a 400 Error body and closes the connection", () =>
    Effect.gen(function*() {
      const api = yield* start({ ports: MemoryStore.layer, limits: { maxHeaderSize: 4_096 } })
      const small = yield* api.request("/v1/openapi.json", { headers: { "x-padding": "a".repeat(2_000) } })
      expect(small.status).toBe(200)
      const response = yield* raw(api.origin, `GET /v1/pets HTTP/1.1\r\nHost: x\r\nX-Padding: ${"a".repeat(8_000)}\r\n\r\n`)
      expect(response).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/)
      expect(response).toMatch(/connection: close/i)
      expect(bodyOf(response)).toEqual({ code: "invalid_request", message: "The request headers are too large", status: 400 })
    }))

  it.scoped("answers headers that do not arrive in time with a 400 Error body", () =>
    Effect.gen(function*() {
      const api = yield* start({ ports: MemoryStore.layer, limits: { headersTimeout: 300, requestTimeout: 1_000 } })
      const response = yield* raw(api.origin, "GET /v1/pets HTTP/1.1\r\nHost: x\r\n")
      expect(response).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/)
      expect(bodyOf(response)).toEqual({ code: "invalid_request", message: "The request was not received in time", status: 400 })
    }))

  it.scoped("answers a request that is not HTTP with a 400 Error body", () =>
    Effect.gen(function*() {
      const api = yield* start({ ports: MemoryStore.layer })
      const response = yield* raw(api.origin, "HELLO\r\n\r\n")
      expect(bodyOf(response)).toMatchObject({ code: "invalid_request", status: 400 })
    }))
})
