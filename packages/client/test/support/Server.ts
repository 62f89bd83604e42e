import type { Plan } from "@animal-store/core"
import { AccessConfig, AnimalStore, ApiKeyAuth } from "@animal-store/core"
import { NodeListeners, NodeServer } from "@animal-store/http-adapter"
import { MemoryStore } from "@animal-store/memory-store"
import { HttpServer } from "@effect/platform"
import { NodeHttpServer } from "@effect/platform-node"
import { Context, Effect, Layer, Redacted } from "effect"
import * as Http from "node:http"
import type * as Net from "node:net"

/**
 * A real Animal Store server (memory store, the HTTP adapter on a node:http
 * server on 127.0.0.1) in the test's own runtime: it reads the test's clock,
 * so `TestClock` moves the server's windows, bans and sunset too.
 */
export const start = (access?: Partial<AccessConfig.AccessSettings>) =>
  Effect.gen(function*() {
    const listening = Layer.scoped(
      HttpServer.HttpServer,
      Effect.flatMap(
        NodeListeners.make({ accessLog: false }),
        (listeners) => NodeHttpServer.make(() => NodeServer.make(undefined, listeners), { host: "127.0.0.1", port: 0 })
      )
    )
    const context = yield* Layer.build(
      listening.pipe(
        Layer.provideMerge(
          AnimalStore.layer.pipe(Layer.provide(AccessConfig.layer(access)), Layer.provide(MemoryStore.layer))
        ),
        Layer.orDie
      )
    )
    const address = Context.get(context, HttpServer.HttpServer).address
    const auth = Context.get(context, ApiKeyAuth.ApiKeyAuth)
    const origin = address._tag === "TcpAddress" ? `http://127.0.0.1:${address.port}` : ""
    return {
      origin,
      baseUrl: `${origin}/v1`,
      issue: (plan: Plan.Plan) =>
        auth.issue({ plan }).pipe(Effect.map(({ secret }) => Redacted.value(secret)), Effect.orDie)
    }
  })

/**
 * A proxy in front of `target` that counts the requests it sees and can
 * misbehave: `fault(n)` for the n-th request (1-based) decides whether it is
 * forwarded (`"pass"`), answered 503 without reaching the server (`"503"`),
 * or forwarded and its connection then destroyed before the response
 * (`"drop"`: the server did the work, the client never hears of it).
 */
export const proxy = (target: string, fault: (n: number, request: Http.IncomingMessage) => "pass" | "503" | "drop") =>
  Effect.acquireRelease(
    Effect.async<{ readonly baseUrl: string; readonly seen: () => ReadonlyArray<string> }>((resume) => {
      const seen: Array<string> = []
      const server = Http.createServer((request, response) => {
        seen.push(`${request.method} ${request.url}`)
        const action = fault(seen.length, request)
        if (action === "503") {
          response.writeHead(503, { "content-type": "application/json", "retry-after": "1" })
          response.end(JSON.stringify({ code: "service_unavailable", message: "down", status: 503 }))
          return
        }
        const upstream = Http.request(new URL(request.url!, target), { method: request.method, headers: request.headers }, (reply) => {
          if (action === "drop") {
            reply.resume()
            reply.on("end", () => request.socket.destroy())
            return
          }
          response.writeHead(reply.statusCode!, reply.headers)
          reply.pipe(response)
        })
        request.pipe(upstream)
      })
      server.listen(0, "127.0.0.1", () => {
        const port = (server.address() as Net.AddressInfo).port
        resume(Effect.succeed(Object.assign({ baseUrl: `http://127.0.0.1:${port}/v1`, seen: () => [...seen] }, { server })))
      })
    }),
    (proxied) =>
      Effect.async<void>((resume) => {
        const server = (proxied as unknown as { server: Http.Server }).server
        server.closeAllConnections()
        server.close(() => resume(Effect.void))
      })
  )
