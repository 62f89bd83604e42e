/** The operations listener on @effect/platform's router and Node http server. */
import { StoreError, StoreReadiness } from "@animal-store/core"
import type { HttpExchange } from "@animal-store/http-adapter"
import { Health } from "@animal-store/http-adapter"
import * as HttpRouter from "@effect/platform/HttpRouter"
import * as HttpServer from "@effect/platform/HttpServer"
import type * as HttpServerError from "@effect/platform/HttpServerError"
import type * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import type { Scope } from "effect"
import { Effect, Layer, Runtime } from "effect"
import * as Http from "node:http"
import type * as OpsListener from "../OpsListener.js"
import { ServerMetrics } from "../ServerMetrics.js"
import * as Supervision from "./supervision.js"

const metrics = Effect.flatMap(ServerMetrics, ({ registry }) =>
  Effect.map(
    Effect.promise(() => registry.metrics()),
    (text) => HttpServerResponse.text(text, { contentType: registry.contentType })
  ))

/** An adapter's response (a probe's) as the router's. */
const respond = ({ body, headers: { "content-type": contentType, ...headers }, status }: HttpExchange.Response) =>
  typeof body === "string"
    ? HttpServerResponse.text(body, { status, headers, contentType })
    : HttpServerResponse.uint8Array(body, { status, headers, contentType })

const healthz = respond(Health.ok)

/** How long a worker waits for the supervisor to say whether the service is ready. */
const serviceReadinessLimitMillis = 3_000

const unavailable = (message: string) => new StoreError.StoreError({ reason: "Unavailable", message })

/** Whether this process's store answers, as `/readyz` says (within 1 s, kept 1 s), without logging. */
const storeReady = Effect.flatMap(StoreReadiness.StoreReadiness, ({ check }) =>
  Effect.cachedWithTTL(
    check.pipe(
      Effect.timeoutFail({
        duration: Health.readinessTimeout,
        onTimeout: () => unavailable("The store did not answer the readiness check within 1 s")
      }),
      Effect.either
    ),
    Health.readinessTimeout
  ))

/**
 * The answer of `/readyz`: in a worker of `serve`'s supervisor, the service's
 * (one serving worker's store answers); otherwise this process's store's.
 */
const readyz = Effect.gen(function*() {
  const ready = yield* storeReady
  if (Supervision.workerOf() === undefined) {
    return Effect.map(ready, (answer) => respond(answer._tag === "Right" ? Health.ok : Health.notReady(answer.left)))
  }
  const runtime = yield* Effect.runtime<never>()
  Supervision.receive("AnimalStore/Readiness", ({ id }) =>
    Runtime.runFork(runtime)(Effect.flatMap(ready, (answer) =>
      Effect.sync(() =>
        Supervision.tell({
          _tag: "AnimalStore/ReadinessReply",
          id,
          ready: answer._tag === "Right",
          message: answer._tag === "Right" ? undefined : answer.left.message
        })
      ))))
  return Effect.map(
    Effect.promise(() => Supervision.askReadiness(serviceReadinessLimitMillis)),
    (reply) =>
      respond(
        reply?.ready === true
          ? Health.ok
          : Health.notReady(unavailable(reply?.message ?? "The supervisor did not say within 3 s whether a worker is ready"))
      )
  )
})

const logListening = Layer.effectDiscard(
  Effect.flatMap(HttpServer.HttpServer, ({ address }) =>
    Effect.logInfo(
      address._tag === "TcpAddress"
        ? `Operations listening on http://${address.hostname}:${address.port}`
        : `Operations listening on ${address.path}`
    ))
)

const listen = <E, R>(
  options: OpsListener.Options<E, R>,
  readiness: Effect.Effect<HttpServerResponse.HttpServerResponse>
): Layer.Layer<
  never,
  HttpServerError.ServeError,
  ServerMetrics | Exclude<R, HttpServerRequest.HttpServerRequest | Scope.Scope>
> => {
  const base = HttpRouter.empty.pipe(
    HttpRouter.get("/metrics", metrics),
    HttpRouter.get(Health.healthzPath, Effect.succeed(healthz)),
    HttpRouter.head(Health.healthzPath, Effect.succeed(healthz)),
    HttpRouter.get(Health.readyzPath, readiness),
    HttpRouter.head(Health.readyzPath, readiness)
  )
  const router = options.admin === undefined ? base : HttpRouter.mountApp(base, "/admin/v1", options.admin, {
    includePrefix: true
  })
  return options.server === undefined
    ? Layer.merge(HttpServer.serve(router), logListening).pipe(
      Layer.provide(NodeHttpServer.layer(() => Http.createServer(), { host: options.host, port: options.port }))
    )
    : HttpServer.serve(router).pipe(Layer.provide(options.server))
}

export const layer = <E, R>(options: OpsListener.Options<E, R>) =>
  Layer.unwrapEffect(Effect.map(readyz, (readiness) => listen(options, readiness)))
