import { AccessConfig, AnimalStore, ApiKeyAuth } from "@animal-store/core"
import { MemoryStore } from "@animal-store/memory-store"
import { HttpServer } from "@effect/platform"
import { NodeHttpServer } from "@effect/platform-node"
import { describe, expect, it } from "@effect/vitest"
import { Context, Effect, Layer, Redacted } from "effect"
import { createServer } from "node:http"
import * as HttpAdapter from "../src/HttpAdapter.js"
import { maxBytes } from "../src/RequestBody.js"

const secret = "ask_live_effecthost0000000000000"

/** `HttpAdapter.layer` served by @effect/platform's Node server on a random port, on a memory store. */
const start = Effect.gen(function*() {
  const context = yield* Layer.build(
    HttpAdapter.layer({ accessLog: false }).pipe(
      Layer.provideMerge(NodeHttpServer.layer(createServer, { host: "127.0.0.1", port: 0 })),
      Layer.provideMerge(AnimalStore.layer.pipe(Layer.provide(AccessConfig.layer()), Layer.provide(MemoryStore.layer)))
    )
  )
  yield* Effect.orDie(Context.get(context, ApiKeyAuth.ApiKeyAuth).provision(Redacted.make(secret), { plan: "pro" }))
  const address = Context.get(context, HttpServer.HttpServer).address
  const origin = address._tag === "TcpAddress" ? `http://127.0.0.1:${address.port}` : ""
  return (path: string, init?: RequestInit) => Effect.promise(() => fetch(origin + path, init))
})

const authorized = { authorization: `Bearer ${secret}` }

describe("HttpAdapter.layer on an Effect HttpServer", () => {
  it.scoped("serves the operations with their rules and headers", () =>
    Effect.gen(function*() {
      const request = yield* start

      const refused = yield* request("/v1/pets")
      expect(refused.status).toBe(401)
      expect(refused.headers.get("www-authenticate")).toBe(`Bearer realm="animal-store"`)
      expect(refused.headers.get("x-ratelimit-remaining")).toBe("59")

      const created = yield* request("/v1/pets", {
        method: "POST",
        headers: { ...authorized, "content-type": "application/json" },
        body: JSON.stringify({ name: "  Rex ", categoryId: 3 })
      })
      expect(created.status).toBe(201)
      const pet = yield* Effect.promise(() => created.json())
      expect(pet).toEqual({ id: 1, name: "Rex", categoryId: 3, status: "available" })
      expect(created.headers.get("location")).toBe("/v1/pets/1")

      const tooLarge = yield* request("/v1/pets", {
        method: "POST",
        headers: { ...authorized, "content-type": "application/json" },
        body: " ".repeat(maxBytes + 1)
      })
      expect(tooLarge.status).toBe(413)

      const listed = yield* request("/v1/pets?limit=1", { headers: authorized })
      expect(listed.status).toBe(200)
      expect(yield* Effect.promise(() => listed.json())).toEqual([pet])
      expect(listed.headers.get("x-ratelimit-limit")).toBe("300")

      const got = yield* request("/v1/pets/1", { headers: authorized })
      expect(got.status).toBe(200)
      expect(got.headers.get("sunset")).toBe("Thu, 05 Dec 2030 00:00:00 GMT")

      const head = yield* request("/v1/pets", { method: "HEAD", headers: authorized })
      expect(head.status).toBe(200)
      expect(head.headers.get("x-ratelimit-limit")).toBe("300")
      expect(yield* Effect.promise(() => head.text())).toBe("")

      const put = yield* request("/v1/pets", { method: "PUT", headers: authorized })
      expect(put.status).toBe(405)
      expect(put.headers.get("allow")).toBe("GET, HEAD, OPTIONS, POST")

      const docs = yield* request("/v1/docs")
      expect(docs.status).toBe(200)
      expect(docs.headers.get("content-type")).toMatch(/^text\/html/)
    }))
})
