/**
 * The wire rules of decisions.md on the other hosts: the web handler (whose
 * `Headers` joins a repeated field with ", ") and `HttpAdapter.layer` on
 * @effect/platform's Node server (raw bytes on a socket). A repeated `Host`,
 * `Authorization`, `Content-Length` or `Content-Type` is a 400 in the client
 * address's bucket; a body with a `Content-Encoding` other than `identity`
 * is a 415.
 */
import { AccessConfig, AnimalStore, ApiKeyAuth } from "@animal-store/core"
import { MemoryStore } from "@animal-store/memory-store"
import { HttpServer } from "@effect/platform"
import { NodeHttpServer } from "@effect/platform-node"
import { describe, expect, it } from "@effect/vitest"
import { Context, Effect, Layer, ManagedRuntime, Redacted } from "effect"
import { createServer } from "node:http"
import * as HttpAdapter from "../src/HttpAdapter.js"
import * as WebHandler from "../src/WebHandler.js"
import * as RawSocket from "./support/RawSocket.js"

const secret = "ask_live_repeatedheaders00000000"
const pet = JSON.stringify({ name: "Rex", categoryId: 1 })

const services = () =>
  AnimalStore.layer.pipe(Layer.provide(AccessConfig.layer({ anonymousPerMinute: 5 })), Layer.provide(MemoryStore.layer))

/** A web handler on a memory store with one pro key. */
const web = Effect.gen(function*() {
  const layer = services()
  const runtime = ManagedRuntime.make(layer)
  const handler = WebHandler.make(layer, { memoMap: runtime.memoMap, accessLog: false })
  yield* Effect.addFinalizer(() => Effect.promise(() => handler.dispose().then(() => runtime.dispose())))
  yield* Effect.promise(() =>
    runtime.runPromise(Effect.flatMap(ApiKeyAuth.ApiKeyAuth, (auth) => auth.provision(Redacted.make(secret), { plan: "pro" })))
  )
  return (headers: ReadonlyArray<readonly [string, string]>, body?: string) => {
    const sent = new Headers()
    for (const [name, value] of headers) sent.append(name, value)
    const request = new Request("http://host/v1/pets", {
      method: body === undefined ? "GET" : "POST",
      headers: sent,
      ...(body === undefined ? {} : { body })
    })
    return Effect.promise(async () => {
      const response = await handler.handler(request, { remoteAddress: "192.0.2.7" })
      return { status: response.status, headers: response.headers, body: await response.json() as any }
    })
  }
})

const bearer = (token: string) => ["authorization", `Bearer ${token}`] as const
const json = ["content-type", "application/json"] as const

describe("the web handler", () => {
  it.scoped("refuses a repeated Host, Authorization, Content-Length or Content-Type: 400 in the address's bucket", () =>
    Effect.gen(function*() {
      const send = yield* web
      const cases: ReadonlyArray<readonly [ReadonlyArray<readonly [string, string]>, string | undefined, RegExp]> = [
        [[bearer(secret), bearer("bogus")], undefined, /Authorization/],
        [[bearer("bogus"), bearer(secret)], undefined, /Authorization/],
        [[bearer(secret), ["host", "a"], ["host", "b"]], undefined, /Host/],
        [[bearer(secret), json, ["content-type", "text/plain"]], pet, /Content-Type/],
        [[bearer(secret), json, ["content-length", "31"], ["content-length", "31"]], pet, /Content-Length/]
      ]
      let remaining = 5
      for (const [headers, body, names] of cases) {
        const response = yield* send(headers, body)
        expect(response.status).toBe(400)
        expect(response.body).toMatchObject({ code: "invalid_request", status: 400 })
        expect(response.body.message).toMatch(names)
        expect(response.headers.get("x-ratelimit-limit")).toBe("5")
        expect(response.headers.get("x-ratelimit-remaining")).toBe(String(--remaining))
      }
      // nothing admitted as the key, nothing stored
      const listed = yield* send([bearer(secret)])
      expect(listed.headers.get("x-ratelimit-remaining")).toBe("299")
      expect(listed.body).toEqual([])
    }))

  it.scoped("one credentials with parameters is not a repeated Authorization: 401", () =>
    Effect.gen(function*() {
      const send = yield* web
      const digest = yield* send([["authorization", "Digest username=\"a\", realm=\"b\", nonce=\"c\""]])
      expect(digest.status).toBe(401)
    }))

  it.scoped("a body with a Content-Encoding other than identity is a 415", () =>
    Effect.gen(function*() {
      const send = yield* web
      const refused = yield* send([bearer(secret), json, ["content-encoding", "gzip"]], pet)
      expect(refused.status).toBe(415)
      expect(refused.body).toMatchObject({ code: "unsupported_media_type", status: 415 })
      expect(refused.headers.get("x-ratelimit-remaining")).toBe("299")
      const created = yield* send([bearer(secret), json, ["content-encoding", "identity"]], pet)
      expect(created.status).toBe(201)
    }))
})

/** `HttpAdapter.layer` served by @effect/platform's Node server on a random port. */
const effectHost = Effect.gen(function*() {
  const context = yield* Layer.build(
    HttpAdapter.layer({ accessLog: false }).pipe(
      Layer.provideMerge(NodeHttpServer.layer(createServer, { host: "127.0.0.1", port: 0 })),
      Layer.provideMerge(services())
    )
  )
  yield* Effect.orDie(Context.get(context, ApiKeyAuth.ApiKeyAuth).provision(Redacted.make(secret), { plan: "pro" }))
  const address = Context.get(context, HttpServer.HttpServer).address
  return address._tag === "TcpAddress" ? `http://127.0.0.1:${address.port}` : ""
})

const post = (headers: string) =>
  `POST /v1/pets HTTP/1.1\r\nHost: x\r\n${headers}Content-Length: ${pet.length}\r\n\r\n${pet}`

describe("HttpAdapter.layer on an Effect HttpServer", () => {
  it.scoped("refuses repeated headers (400, the address's bucket) and encoded bodies (415)", () =>
    Effect.gen(function*() {
      const origin = yield* effectHost
      const auth = `Authorization: Bearer ${secret}\r\n`
      const cases: ReadonlyArray<readonly [string, number, string]> = [
        [post(`${auth}authorization: Bearer bogus\r\nContent-Type: application/json\r\n`), 400, "5"],
        [post(`Authorization: Bearer bogus\r\n${auth}Content-Type: application/json\r\n`), 400, "5"],
        [post(`${auth}Content-Type: application/json\r\nContent-Type: text/plain\r\n`), 400, "5"],
        [`GET /v1/pets HTTP/1.1\r\nHost: a\r\nHost: b\r\n${auth}\r\n`, 400, "5"],
        [post(`${auth}Content-Type: application/json\r\nContent-Encoding: gzip\r\n`), 415, "300"]
      ]
      for (const [raw, status, limit] of cases) {
        const response = yield* RawSocket.exchange(origin, raw)
        expect(response.status).toBe(status)
        expect(JSON.parse(response.body)).toMatchObject({ status })
        expect(response.headers["x-ratelimit-limit"]).toBe(limit)
      }
      const created = yield* RawSocket.exchange(origin, post(`${auth}Content-Type: application/json\r\n`))
      expect(created.status).toBe(201)
      expect(created.headers["location"]).toBe("/v1/pets/1")
    }))
})
