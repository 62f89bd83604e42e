import type { AccessConfig as AccessSettings } from "@animal-store/core"
import { AccessConfig, AnimalStore, ApiKeyAuth } from "@animal-store/core"
import { MemoryStore } from "@animal-store/memory-store"
import { SqliteStore } from "@animal-store/sqlite-store"
import { describe, expect, it } from "@effect/vitest"
import { Effect, FastCheck as fc, Layer, ManagedRuntime, Redacted } from "effect"
import * as WebHandler from "../src/WebHandler.js"
import { maxBytes } from "../src/RequestBody.js"

const secret = "ask_live_webhandler0000000000000"

/** A web handler on a memory store with one pro key, sharing the store with `runtime`. */
const make = (settings?: Partial<AccessSettings.AccessSettings>) => {
  const services = AnimalStore.layer.pipe(Layer.provide(AccessConfig.layer(settings)), Layer.provide(MemoryStore.layer))
  const runtime = ManagedRuntime.make(services)
  const web = WebHandler.make(services, { memoMap: runtime.memoMap, accessLog: false })
  return Effect.acquireRelease(
    Effect.as(
      Effect.promise(() =>
        runtime.runPromise(
          Effect.flatMap(ApiKeyAuth.ApiKeyAuth, (auth) => auth.provision(Redacted.make(secret), { plan: "pro" }))
        )
      ),
      web
    ),
    () => Effect.promise(() => web.dispose().then(() => runtime.dispose()))
  )
}

const post = (body: NonNullable<RequestInit["body"]>, init?: RequestInit) =>
  new Request("http://host/v1/pets", {
    method: "POST",
    headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" },
    body,
    ...init
  })

const petOfSize = (size: number) => {
  const pet = JSON.stringify({ name: "Sized", categoryId: 1 })
  return pet + " ".repeat(size - pet.length)
}

describe("the web handler", () => {
  it.scoped("answers requests of any host, with the headers", () =>
    Effect.gen(function*() {
      const web = yield* make()
      const created = yield* Effect.promise(() => web.handler(post(JSON.stringify({ name: "A", categoryId: 1 }))))
      expect(created.status).toBe(201)
      expect(created.headers.get("location")).toBe("/v1/pets/1")
      expect(created.headers.get("x-ratelimit-remaining")).toBe("299")
      const listed = yield* Effect.promise(() =>
        web.handler(new Request("http://host/v1/pets", { headers: { authorization: `Bearer ${secret}` } }))
      )
      expect(yield* Effect.promise(() => listed.json())).toEqual([{ id: 1, name: "A", categoryId: 1, status: "available" }])
    }))

  it.scoped("limits requests without a key by the remote address the host passes", () =>
    Effect.gen(function*() {
      const web = yield* make({ anonymousPerMinute: 1 })
      const status = (remoteAddress?: string) =>
        Effect.promise(() =>
          web.handler(new Request("http://host/v1/openapi.json"), remoteAddress === undefined ? undefined : { remoteAddress })
        ).pipe(Effect.map((response) => response.status))
      expect([yield* status("192.0.2.1"), yield* status("192.0.2.2"), yield* status("192.0.2.1")]).toEqual([200, 200, 429])
      expect([yield* status(), yield* status()]).toEqual([200, 429])
    }))

  it.scoped("refuses a body over 65,536 bytes while it streams, without waiting for its end", () =>
    Effect.gen(function*() {
      const web = yield* make()
      const endless = new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(new TextEncoder().encode("[" + " ".repeat(maxBytes)))
        }
      })
      const response = yield* Effect.promise(() =>
        web.handler(post(endless, { duplex: "half" }))
      )
      expect(response.status).toBe(413)
      expect(yield* Effect.promise(() => response.json())).toMatchObject({ code: "payload_too_large", status: 413 })
    }))

  it.scoped("accepts bodies up to 65,536 bytes, streamed in chunks or not, and refuses larger ones", () =>
    Effect.gen(function*() {
      const web = yield* make()
      yield* Effect.promise(() =>
        fc.assert(
          fc.asyncProperty(
            fc.integer({ min: maxBytes - 40, max: maxBytes + 40 }),
            fc.integer({ min: 1, max: 40_000 }),
            fc.boolean(),
            async (size, chunkSize, streamed) => {
              const bytes = new TextEncoder().encode(petOfSize(size))
              const body = streamed
                ? new ReadableStream<Uint8Array>({
                  start(controller) {
                    for (let i = 0; i < bytes.length; i += chunkSize) controller.enqueue(bytes.slice(i, i + chunkSize))
                    controller.close()
                  }
                })
                : bytes
              const response = await web.handler(post(body, { duplex: "half" }))
              expect(response.status).toBe(size <= maxBytes ? 201 : 413)
            }
          ),
          {
            numRuns: 40,
            examples: [[maxBytes, 1_000, true], [maxBytes, 1, false], [maxBytes + 1, 4_096, true], [maxBytes + 1, 1, false]]
          }
        )
      )
    }))

  it.effect("answers 500 with the bare Error body when its services cannot be built", () =>
    Effect.gen(function*() {
      const services = AnimalStore.layer.pipe(
        Layer.provide(AccessConfig.layer()),
        Layer.provide(SqliteStore.layer({ filename: "/dev/null/not-a-folder/animal-store.db" }))
      )
      const web = WebHandler.make(services, { accessLog: false })
      const response = yield* Effect.promise(() => web.handler(new Request("http://host/v1/pets")))
      expect(response.status).toBe(500)
      expect(yield* Effect.promise(() => response.json())).toEqual({
        code: "internal_error",
        message: "An internal error occurred",
        status: 500
      })
      yield* Effect.promise(() => web.dispose())
    }))
})
