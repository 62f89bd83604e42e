/** The operations listener on @effect/platform's router and Node http server. */
import * as HttpRouter from "@effect/platform/HttpRouter"
import * as HttpServer from "@effect/platform/HttpServer"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import { Effect, Layer } from "effect"
import * as Http from "node:http"
import type * as OpsListener from "../OpsListener.js"
import { ServerMetrics } from "../ServerMetrics.js"

const metrics = Effect.flatMap(ServerMetrics, ({ registry }) =>
  Effect.map(
    Effect.promise(() => registry.metrics()),
    (text) => HttpServerResponse.text(text, { contentType: registry.contentType })
  ))

const logListening = Layer.effectDiscard(
  Effect.flatMap(HttpServer.HttpServer, ({ address }) =>
    Effect.logInfo(
      address._tag === "TcpAddress"
        ? `Operations listening on http://${address.hostname}:${address.port}`
        : `Operations listening on ${address.path}`
    ))
)

export const layer = <E, R>(options: OpsListener.Options<E, R>) => {
  const base = HttpRouter.empty.pipe(HttpRouter.get("/metrics", metrics))
  const router = options.admin === undefined ? base : HttpRouter.mountApp(base, "/admin/v1", options.admin, {
    includePrefix: true
  })
  return options.server === undefined
    ? Layer.merge(HttpServer.serve(router), logListening).pipe(
      Layer.provide(NodeHttpServer.layer(() => Http.createServer(), { host: options.host, port: options.port }))
    )
    : HttpServer.serve(router).pipe(Layer.provide(options.server))
}
