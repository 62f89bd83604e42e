/**
 * A worker's side of `animal-store serve`'s supervisor: it tells its settings,
 * serves the connections handed to it on servers that listen on nothing (or,
 * alone, accepts from copies of the API's socket itself, records 0067 and 0069),
 * and drains when told to.
 *
 * @internal
 */
import { NodeListeners, NodeServer } from "@animal-store/http-adapter"
import type { RequestHandler } from "@animal-store/http-adapter"
import * as HttpServer from "@effect/platform/HttpServer"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import type { Scope } from "effect"
import { Deferred, Effect, Exit, FiberId, Layer, Option, Predicate, RuntimeFlags, RuntimeFlagsPatch } from "effect"
import * as Http from "node:http"
import * as Net from "node:net"
import type * as StandaloneServer from "../StandaloneServer.js"
import * as Supervision from "./supervision.js"

/** Done when the supervisor says to drain: whether gently (a rolling restart). */
const drainRequested = Deferred.unsafeMake<boolean>(FiberId.none)

/** Where each listener's connections go, once its server takes them. */
const intake: Partial<Record<Supervision.Listener, (socket: Net.Socket) => void>> = {}

let receiving = false

/** The copies of the API's listening socket, when this worker accepts from it itself; closed once it drains. */
let accepting: Array<Net.Server> = []
let acceptingClosed = false

/**
 * Accepts the API's connections from `server`, one copy of `copies`; once all are here, gives the
 * supervisor a copy of its handle, which accepts nothing there.
 */
const acceptFrom = (server: unknown, copies: number): void => {
  const handle = Predicate.hasProperty(server, "_handle") ? server._handle : undefined
  if (!(server instanceof Net.Server) || !Predicate.isObject(handle)) return
  if (acceptingClosed || accepting.length >= copies) {
    server.close()
    return
  }
  accepting.push(server)
  server.on("error", () => {})
  server.on("connection", (socket: Net.Socket) => {
    socket.setNoDelay(true)
    hand("main", socket)
  })
  if (accepting.length === copies) Supervision.tellWith({ _tag: "AnimalStore/Listening" }, handle)
}

/** This worker accepts no more connections from the API's socket. */
const stopAccepting = (): void => {
  acceptingClosed = true
  for (const server of accepting) server.close()
  accepting = []
}

const receiveAll = (): void => {
  if (receiving) return
  receiving = true
  Supervision.receive("AnimalStore/Drain", (message) => Deferred.unsafeDone(drainRequested, Exit.succeed(message.gently)))
  Supervision.receive("AnimalStore/Connection", (message, handle) => {
    Supervision.tell({ _tag: "AnimalStore/Took", id: message.id })
    if (handle instanceof Net.Socket) hand(message.listener, handle)
  })
  Supervision.receive("AnimalStore/Listen", (message, server) => acceptFrom(server, message.copies))
}

/** A connection accepted on `listener`, to its server (closed when none takes them). @internal */
export const hand = (listener: Supervision.Listener, socket: Net.Socket): void => {
  const take = intake[listener]
  if (take !== undefined) take(socket)
  else socket.destroy()
}

/**
 * Sends this worker's settings to the supervisor and waits for its ports (`None`: told to drain first).
 *
 * @internal
 */
export const address = (serve: Omit<Supervision.Serve, "_tag">): Effect.Effect<Option.Option<Supervision.Address>> =>
  Effect.suspend(() => {
    receiveAll()
    const answered = Deferred.unsafeMake<Supervision.Address>(FiberId.none)
    Supervision.receive("AnimalStore/Address", (message) => Deferred.unsafeDone(answered, Exit.succeed(message)))
    Supervision.tell({ _tag: "AnimalStore/Serve", ...serve })
    return Effect.raceFirst(Effect.asSome(Deferred.await(answered)), Effect.as(Deferred.await(drainRequested), Option.none()))
  })

/**
 * Builds `layer`, tells the supervisor it serves, and runs until told to drain.
 *
 * @internal
 */
export const run = <A, E>(layer: Layer.Layer<A, E>): Effect.Effect<void, E> =>
  Effect.raceFirst(
    Effect.scoped(
      Effect.zipRight(Layer.build(layer), Effect.zipRight(Effect.sync(() => Supervision.tell({ _tag: "AnimalStore/Ready" })), Effect.never))
    ),
    Effect.asVoid(Deferred.await(drainRequested))
  )

/**
 * Leaves the supervisor once the worker is done: its IPC channel closes and node:cluster ends the process.
 *
 * @internal
 */
export const leave: Effect.Effect<void> = Effect.sync(() => {
  if (process.connected) process.disconnect?.()
})

const closeAfterResponse = (_request: Http.IncomingMessage, response: Http.ServerResponse): void => {
  response.setHeader("connection", "close")
}

/**
 * Serves the connections handed over for `listener` on `server` until the
 * scope closes, then drains (gently for a rolling restart) and waits for every
 * connection to close.
 *
 * @internal
 */
export const serveConnections = (
  listener: Supervision.Listener,
  server: Http.Server,
  logged: boolean
): Effect.Effect<void, never, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.sync(() => {
      receiveAll()
      const sockets = new Set<Net.Socket>()
      let drained: (() => void) | undefined
      // Node times headers and requests out and closes idle connections once a server emits
      // `listening`: this one listens on nothing, its connections come from the supervisor.
      server.emit("listening")
      server.on("connection", (socket: Net.Socket) => {
        sockets.add(socket)
        socket.once("close", () => {
          sockets.delete(socket)
          if (sockets.size === 0) drained?.()
        })
      })
      intake[listener] = (socket) => server.emit("connection", socket)
      return { sockets, whenDrained: (f: () => void) => (drained = f) }
    }),
    ({ sockets, whenDrained }) =>
      Effect.gen(function*() {
        if (listener === "main") stopAccepting()
        if (logged) yield* Effect.logInfo("Draining: no new connections")
        const gently = (yield* Deferred.isDone(drainRequested)) && (yield* Deferred.await(drainRequested))
        yield* Effect.async<void>((resume) => {
          if (gently) {
            server.prependListener("request", closeAfterResponse)
            if (server.listenerCount("checkContinue") > 0) server.prependListener("checkContinue", closeAfterResponse)
          } else {
            NodeServer.drain(server)
          }
          if (sockets.size === 0) resume(Effect.void)
          else whenDrained(() => resume(Effect.void))
        })
        delete intake[listener]
        server.close()
        if (logged) yield* Effect.logInfo("Drained: every request in flight answered")
      })
  ).pipe(Effect.asVoid)

/** An `HttpServer` on `server`, which serves an app as `NodeHttpServer` does. */
const httpServerOn = (server: Http.Server, hostname: string, port: number): HttpServer.HttpServer =>
  HttpServer.make({
    address: { _tag: "TcpAddress", hostname, port },
    serve: (httpApp, middleware) =>
      Effect.gen(function*() {
        const handler = yield* NodeHttpServer.makeHandler(httpApp, middleware!)
        yield* Effect.acquireRelease(
          Effect.sync(() => server.on("request", handler)),
          () => Effect.sync(() => server.off("request", handler))
        )
      })
  })

/**
 * The API's HTTP server in a worker (in place of `StandaloneServer.layerHttp`),
 * on the supervisor's port; it drains when its scope closes.
 *
 * @internal
 */
export const layerHttp = (host: string, port: number) =>
(
  options: Pick<StandaloneServer.Options, "limits" | keyof RequestHandler.Options>
): Layer.Layer<HttpServer.HttpServer, never, RequestHandler.Requirements> =>
  Layer.scoped(
    HttpServer.HttpServer,
    Effect.gen(function*() {
      const listeners = yield* Effect.withRuntimeFlagsPatch(
        NodeListeners.make(options),
        RuntimeFlagsPatch.disable(RuntimeFlags.RuntimeMetrics)
      )
      const server = NodeServer.make(options.limits, listeners)
      yield* serveConnections("main", server, true)
      return httpServerOn(server, host, port)
    })
  )

/**
 * The operations listener's HTTP server in a worker, on the supervisor's operations port.
 *
 * @internal
 */
export const layerOps = (host: string, port: number): Layer.Layer<HttpServer.HttpServer> =>
  Layer.scoped(
    HttpServer.HttpServer,
    Effect.gen(function*() {
      const server = Http.createServer()
      yield* serveConnections("ops", server, false)
      return httpServerOn(server, host, port)
    })
  )
