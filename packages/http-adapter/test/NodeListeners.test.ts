import { AccessConfig, AnimalStore, ApiKeyAuth } from "@animal-store/core"
import { MemoryStore } from "@animal-store/memory-store"
import { SqliteStore } from "@animal-store/sqlite-store"
import { describe, expect, it } from "@effect/vitest"
import { Effect, FiberId, FiberRef, FiberRefs, HashMap, Layer, Logger, Option, Redacted } from "effect"
import type * as Http from "node:http"
import { Readable } from "node:stream"
import * as NodeListeners from "../src/NodeListeners.js"
import { temporaryDatabase } from "./support/TestServer.js"

/** What a listener wrote on a response: its status once `end` was called. */
interface Written {
  status: number | undefined
  ended: boolean
}

/** A Node request without a key (a 401) and a response that records what is written on it. */
const exchange = (): { readonly request: Http.IncomingMessage; readonly response: Http.ServerResponse; readonly written: Written } => {
  const written: Written = { status: undefined, ended: false }
  const request = {
    method: "GET",
    url: "/v1/pets",
    headers: { host: "x" },
    socket: { remoteAddress: "127.0.0.1", localAddress: "127.0.0.1", localPort: 8080 }
  }
  const response = {
    headersSent: false,
    destroyed: false,
    writeHead(status: number) {
      written.status = status
      this.headersSent = true
    },
    end() {
      written.ended = true
    }
  }
  return {
    request: request as unknown as Http.IncomingMessage,
    response: response as unknown as Http.ServerResponse,
    written
  }
}

const nextTurn = Effect.promise(() => new Promise((resolve) => setImmediate(resolve)))

/** The services of core on `ports`, open until the test's scope closes. */
const servicesOn = (ports: Layer.Layer<AnimalStore.StorePorts, unknown>) =>
  Layer.build(AnimalStore.layer.pipe(Layer.provide(AccessConfig.layer()), Layer.provide(ports)))

/** The listeners on the services of `ports`. */
const listenersOn = (ports: Layer.Layer<AnimalStore.StorePorts, unknown>) =>
  Effect.flatMap(servicesOn(ports), (services) => Effect.provide(NodeListeners.make({ accessLog: false }), services))

/** A `createPet` whose body (sent with its length) is pushed once the listener has returned, as Node's parser does. */
const createPet = (secret: string) => {
  const body = JSON.stringify({ name: "Rex", categoryId: 1 })
  const { response, written } = exchange()
  const request = Object.assign(new Readable({ read() {} }), {
    method: "POST",
    url: "/v1/pets",
    headers: {
      host: "x",
      authorization: `Bearer ${secret}`,
      "content-type": "application/json",
      "content-length": String(Buffer.byteLength(body))
    },
    socket: { remoteAddress: "127.0.0.1", localAddress: "127.0.0.1", localPort: 8080 }
  })
  return {
    request: request as unknown as Http.IncomingMessage,
    response,
    written,
    sendBody: () => {
      request.push(body)
      request.push(null)
    }
  }
}

const afterTicks = Effect.promise(() => new Promise((resolve) => process.nextTick(() => process.nextTick(resolve))))

describe("the Node listeners write the responses of a turn together", () => {
  it.scoped("a store that commits on return: answered in the listener, written when the turn ends", () =>
    Effect.gen(function*() {
      const listeners = yield* listenersOn(MemoryStore.layer)
      const exchanges = [exchange(), exchange(), exchange()]
      for (const { request, response } of exchanges) listeners.request(request, response)
      expect(exchanges.map(({ written }) => written.ended)).toEqual([false, false, false])
      yield* nextTurn
      expect(exchanges.map(({ written }) => written)).toEqual([
        { status: 401, ended: true },
        { status: 401, ended: true },
        { status: 401, ended: true }
      ])
    }))

  for (
    const [store, ports] of [
      ["memory", Effect.succeed(MemoryStore.layer)],
      ["SQLite, after its commit", Effect.map(temporaryDatabase, (filename) => SqliteStore.layer({ filename }))]
    ] as const
  ) {
    it.scoped(`a response Node refuses to write loses its connection, the turn's others are written (${store})`, () =>
      Effect.gen(function*() {
        const listeners = yield* listenersOn(yield* ports)
        const exchanges = [exchange(), exchange(), exchange()]
        let destroyed = false
        Object.assign(exchanges[0]!.response, {
          end() {
            throw new Error("write after end")
          },
          destroy() {
            destroyed = true
          }
        })
        for (const { request, response } of exchanges) listeners.request(request, response)
        yield* nextTurn
        expect(destroyed).toBe(true)
        expect(exchanges.slice(1).map(({ written }) => written)).toEqual([
          { status: 401, ended: true },
          { status: 401, ended: true }
        ])
      }))
  }

  it.scoped("a body read ahead: its response is written when the turn ends too", () =>
    Effect.gen(function*() {
      const services = yield* servicesOn(MemoryStore.layer)
      const listeners = yield* Effect.provide(NodeListeners.make({ accessLog: false }), services)
      const { secret } = yield* Effect.provide(
        Effect.flatMap(ApiKeyAuth.ApiKeyAuth, (auth) => auth.issue({ plan: "pro" })),
        services
      ).pipe(Effect.orDie)
      const creates = [createPet(secret.pipe(Redacted.value)), createPet(secret.pipe(Redacted.value))]
      for (const { request, response } of creates) listeners.request(request, response)
      for (const { sendBody } of creates) sendBody()
      yield* afterTicks
      expect(creates.map(({ written }) => written.ended)).toEqual([false, false])
      yield* nextTurn
      expect(creates.map(({ written }) => written)).toEqual([
        { status: 201, ended: true },
        { status: 201, ended: true }
      ])
    }))

  it.scoped("a store that commits a turn's writes together: written once the turn has committed", () =>
    Effect.gen(function*() {
      const filename = yield* temporaryDatabase
      const listeners = yield* listenersOn(SqliteStore.layer({ filename }))
      const exchanges = [exchange(), exchange()]
      for (const { request, response } of exchanges) listeners.request(request, response)
      expect(exchanges.map(({ written }) => written.ended)).toEqual([false, false])
      yield* nextTurn
      expect(exchanges.map(({ written }) => written)).toEqual([
        { status: 401, ended: true },
        { status: 401, ended: true }
      ])
    }))
})

describe("a request's fiber starts with the references of the fiber that made the listeners", () => {
  /** A reference each fork adds one to: the runtime's references change when forked. */
  const forks = FiberRef.unsafeMake(0, { fork: (n) => n + 1 })
  /** A reference kept as it is on fork. */
  const kept = FiberRef.unsafeMake("default")

  /** What the access line of each request saw: its annotations, both references, and its fiber. */
  const seenBy = (setUp: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>) =>
    Effect.gen(function*() {
      const seen: Array<{ annotation: unknown; kept: string; forks: number; fiber: string }> = []
      const capture = Logger.make(({ annotations, context, fiberId }) => {
        seen.push({
          annotation: Option.getOrUndefined(HashMap.get(annotations, "host")),
          kept: FiberRefs.getOrDefault(context, kept),
          forks: FiberRefs.getOrDefault(context, forks),
          fiber: FiberId.threadName(fiberId)
        })
      })
      const services = yield* servicesOn(MemoryStore.layer)
      const listeners = yield* NodeListeners.make({ accessLog: true }).pipe(
        Effect.provide(services),
        setUp,
        Effect.annotateLogs("host", "embedding"),
        Effect.locally(kept, "set by the host"),
        Effect.provide(Logger.replace(Logger.defaultLogger, capture))
      )
      const exchanges = [exchange(), exchange()]
      for (const { request, response } of exchanges) listeners.request(request, response)
      yield* nextTurn
      expect(exchanges.map(({ written }) => written.status)).toEqual([401, 401])
      return seen
    })

  it.scoped("when forking changes none of them, as when each fiber forks them", () =>
    Effect.gen(function*() {
      const seen = yield* seenBy((effect) => effect)
      expect(seen.map(({ annotation, forks, kept }) => ({ annotation, forks, kept }))).toEqual([
        { annotation: "embedding", forks: 0, kept: "set by the host" },
        { annotation: "embedding", forks: 0, kept: "set by the host" }
      ])
      expect(new Set(seen.map(({ fiber }) => fiber)).size).toBe(2)
    }))

  it.scoped("when forking changes one, forked once for the listeners and once more for each request", () =>
    Effect.gen(function*() {
      const seen = yield* seenBy((effect) => Effect.locally(effect, forks, 10))
      expect(seen.map(({ annotation, forks, kept }) => ({ annotation, forks, kept }))).toEqual([
        { annotation: "embedding", forks: 12, kept: "set by the host" },
        { annotation: "embedding", forks: 12, kept: "set by the host" }
      ])
      expect(new Set(seen.map(({ fiber }) => fiber)).size).toBe(2)
    }))
})
