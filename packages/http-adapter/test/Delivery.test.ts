/**
 * Responses wait for the store's `Delivery` (record 0068): while the writes a
 * store made are not durable, no response is answered, logged or observed;
 * once they are, it is; when they were lost, the request is answered 503
 * `service_unavailable`, and its access line and observation say 503.
 */
import { AccessConfig, AnimalStore, ApiKeyAuth, Delivery, StoreError } from "@animal-store/core"
import { MemoryStore } from "@animal-store/memory-store"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Fiber, Layer, Redacted } from "effect"
import type * as AccessLog from "../src/AccessLog.js"
import type * as HttpExchange from "../src/HttpExchange.js"
import * as Finish from "../src/internal/finish.js"
import * as RequestHandler from "../src/RequestHandler.js"

/** A delivery the test holds and settles. */
const controlled = () => {
  let waiting: Array<(lost: StoreError.StoreError | undefined) => void> = []
  let holding = false
  return {
    service: Delivery.Delivery.of({
      whenDurable: (deliver) => holding ? void waiting.push(deliver) : deliver(undefined)
    }),
    hold: () => {
      holding = true
    },
    settle: (lost?: StoreError.StoreError) => {
      holding = false
      const settled = waiting
      waiting = []
      for (const deliver of settled) deliver(lost)
    }
  }
}

/** The store's services on the memory store, with `delivery` for its `Delivery`. */
const storeWith = (delivery: Delivery.DeliveryService) =>
  AnimalStore.layer.pipe(
    Layer.provide(AccessConfig.layer({})),
    Layer.provide(Layer.merge(MemoryStore.layer, Layer.succeed(Delivery.Delivery, delivery)))
  )

const request = (method: "GET" | "POST", url: string, secret: string): HttpExchange.Request => {
  const body = new TextEncoder().encode(method === "POST" ? JSON.stringify({ name: "Rex", categoryId: 1 }) : "")
  return {
    method,
    url,
    headers: method === "POST"
      ? { authorization: `Bearer ${secret}`, "content-type": "application/json", "content-length": String(body.length) }
      : { authorization: `Bearer ${secret}` },
    remoteAddress: "127.0.0.1",
    body: () => Effect.succeed(body)
  }
}

describe("a response whose writes the store holds", () => {
  it.scoped("is answered, logged and observed only once they are durable; 503 when they were lost", () =>
    Effect.gen(function*() {
      const delivery = controlled()
      const context = yield* Layer.build(storeWith(delivery.service))
      const logged: Array<AccessLog.Entry> = []
      const observed: Array<number> = []
      const { handle, held } = yield* Effect.provide(
        RequestHandler.makeHandlers({ accessLog: (entry) => logged.push(entry), observe: (seen) => observed.push(seen.status) }),
        context
      )
      expect(held).toBe(true)
      expect((yield* Effect.provide(RequestHandler.makeHandlers({ holdWrites: false }), context)).held).toBe(false)
      const secret = Redacted.value(
        (yield* Effect.provide(Effect.flatMap(ApiKeyAuth.ApiKeyAuth, (auth) => auth.issue({ plan: "pro" })), context).pipe(Effect.orDie))
          .secret
      )

      delivery.hold()
      const created = yield* Effect.fork(handle(request("POST", "/v1/pets", secret)))
      for (let i = 0; i < 20; i++) yield* Effect.yieldNow()
      expect(created.unsafePoll()).toBeNull()
      expect([logged, observed]).toEqual([[], []])
      delivery.settle()
      expect((yield* Fiber.join(created)).status).toBe(201)
      expect(logged.map((entry) => entry.status)).toEqual([201])
      expect(observed).toEqual([201])

      delivery.hold()
      const lost = yield* Effect.fork(handle(request("GET", "/v1/pets/1", secret)))
      for (let i = 0; i < 20; i++) yield* Effect.yieldNow()
      expect(lost.unsafePoll()).toBeNull()
      delivery.settle(new StoreError.StoreError({ reason: "Unavailable", message: "Committing held writes: disk I/O error" }))
      const refused = yield* Fiber.join(lost)
      expect(refused.status).toBe(503)
      expect(refused.headers["retry-after"]).toBeDefined()
      expect(JSON.parse(refused.body as string)).toEqual(expect.objectContaining({ code: "service_unavailable", status: 503 }))
      expect(logged.map((entry) => entry.status)).toEqual([201, 503])
      expect(observed).toEqual([201, 503])
    }))

  it.scoped("ends its fiber as Pending for a Node listener's writer: finished, logged and observed once durable; the 503 of a loss an effect to run", () =>
    Effect.gen(function*() {
      const delivery = controlled()
      // Untraced, as the server runs by default: a traced request's span ends with its finished response.
      const context = yield* Layer.build(Layer.provideMerge(storeWith(delivery.service), Layer.setTracerEnabled(false)))
      const logged: Array<number> = []
      const observed: Array<number> = []
      const { handlePending } = yield* Effect.provide(
        RequestHandler.makeHandlers({ accessLog: (entry) => logged.push(entry.status), observe: (seen) => observed.push(seen.status) }),
        context
      )
      const secret = Redacted.value(
        (yield* Effect.provide(Effect.flatMap(ApiKeyAuth.ApiKeyAuth, (auth) => auth.issue({ plan: "pro" })), context).pipe(Effect.orDie))
          .secret
      )
      const finished: Array<HttpExchange.Response | Effect.Effect<HttpExchange.Response>> = []

      delivery.hold()
      const created = yield* handlePending(request("POST", "/v1/pets", secret))
      expect(Finish.isPending(created)).toBe(true)
      Finish.whenFinished(created, (done) => finished.push(done))
      expect([finished, logged, observed]).toEqual([[], [], []])
      delivery.settle()
      expect(finished).toHaveLength(1)
      const answered = finished[0] as HttpExchange.Response
      expect([answered.status, answered.headers["x-request-id"] !== undefined, Finish.isPending(answered)]).toEqual([201, true, false])
      expect([logged, observed]).toEqual([[201], [201]])

      delivery.hold()
      const lost = yield* handlePending(request("GET", "/v1/pets/1", secret))
      Finish.whenFinished(lost, (done) => finished.push(done))
      delivery.settle(new StoreError.StoreError({ reason: "Unavailable", message: "Committing held writes: disk I/O error" }))
      expect(Effect.isEffect(finished[1])).toBe(true)
      expect(logged).toEqual([201])
      const refused = yield* (finished[1] as Effect.Effect<HttpExchange.Response>)
      expect(refused.status).toBe(503)
      expect([logged, observed]).toEqual([[201, 503], [201, 503]])

      // Nothing held: finished at once.
      const now = yield* handlePending(request("GET", "/v1/pets/1", secret))
      Finish.whenFinished(now, (done) => finished.push(done))
      expect((finished[2] as HttpExchange.Response).status).toBe(200)
    }))

  it.scoped("is answered at once on a store whose writes are durable when its calls complete (the memory store: `Delivery.immediate`), its requests not held", () =>
    Effect.gen(function*() {
      const context = yield* Layer.build(
        AnimalStore.layer.pipe(Layer.provide(AccessConfig.layer({})), Layer.provide(MemoryStore.layer))
      )
      const { handle, held } = yield* Effect.provide(RequestHandler.makeHandlers({ accessLog: false }), context)
      expect(held).toBe(false)
      const response = yield* handle(request("GET", "/v1/pets/1", "ask_live_unknownunknown00000"))
      expect(response.status).toBe(401)
      expect(yield* Effect.provide(Delivery.Delivery, context)).toBe(Delivery.immediate)
    }))
})
