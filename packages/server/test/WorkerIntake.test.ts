/**
 * A worker's HTTP server takes its connections from the supervisor and
 * listens on nothing: Node's header timeout still cuts a client that sends
 * its headers too slowly, and the server drains the connections handed to it.
 */
import { NodeServer } from "@animal-store/http-adapter"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Scope } from "effect"
import * as Net from "node:net"
import * as WorkerIntake from "../src/internal/workerIntake.js"

/** A listening socket handing each connection to the worker's `main` server, as the supervisor's messages do. */
const front = Effect.acquireRelease(
  Effect.async<Net.Server>((resume) => {
    const server = Net.createServer((socket) => WorkerIntake.hand("main", socket))
    server.listen(0, "127.0.0.1", () => resume(Effect.succeed(server)))
  }),
  (server) => Effect.sync(() => server.close())
)

/** A client's connection: what it received, and whether it ended. */
const connect = (port: number) =>
  Effect.async<{ readonly socket: Net.Socket; readonly received: () => string; readonly ended: Promise<number> }>((resume) => {
    const started = Date.now()
    const socket = Net.connect(port, "127.0.0.1", () => resume(Effect.succeed({ socket, received: () => text, ended })))
    let text = ""
    socket.setEncoding("utf8").on("data", (chunk) => (text += chunk))
    const ended = new Promise<number>((done) => socket.on("close", () => done(Date.now() - started)))
  })

describe("a worker's HTTP server on the supervisor's connections", () => {
  it.scopedLive("cuts off headers sent too slowly, and drains: an idle connection is closed, one in flight answered", () =>
    Effect.gen(function*() {
      const server = NodeServer.make({ headersTimeout: 300, requestTimeout: 1_000 })
      server.on("request", (_request, response) => setTimeout(() => response.end("done"), 300))
      const scope = yield* Scope.make()
      yield* Scope.extend(WorkerIntake.serveConnections("main", server, false), scope)
      const port = (yield* front).address() as Net.AddressInfo

      const slow = yield* connect(port.port)
      slow.socket.write("GET / HTTP/1.1\r\nHost: x\r\n")
      const cutAfter = yield* Effect.promise(() => Promise.race([slow.ended, new Promise<number>((r) => setTimeout(() => r(-1), 5_000))]))
      expect(cutAfter).toBeGreaterThanOrEqual(250)
      expect(cutAfter).not.toBe(-1)
      expect(slow.received()).toMatch(/^HTTP\/1\.1 400 /)

      const idle = yield* connect(port.port)
      idle.socket.write("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
      yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 400)))
      expect(idle.received()).toMatch(/keep-alive[^]*done$/i)
      const inFlight = yield* connect(port.port)
      inFlight.socket.write("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
      yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 50)))
      const closing = Effect.runPromise(Scope.close(scope, Exit.void))
      yield* Effect.promise(() => idle.ended)
      expect(inFlight.received()).toBe("")
      yield* Effect.promise(() => closing)
      expect(inFlight.received()).toMatch(/^HTTP\/1\.1 200 [^]*connection: close[^]*done$/i)
    }))
})
