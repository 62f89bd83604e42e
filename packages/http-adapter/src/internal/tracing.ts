/**
 * The server span of a request, when the host has its tracer enabled: a
 * child of the W3C `traceparent` it came with, named and annotated after the
 * OpenTelemetry HTTP semantic conventions, with its request id.
 *
 * @internal
 */
import * as Headers from "@effect/platform/Headers"
import * as HttpTraceContext from "@effect/platform/HttpTraceContext"
import { Effect, FiberRef, Option } from "effect"
import * as HttpExchange from "../HttpExchange.js"
import * as RequestObserver from "../RequestObserver.js"
import * as Routes from "../Routes.js"

/** Whether the running fiber has its tracer enabled (`Effect.withTracerEnabled`): the one tracing switch. */
export const enabled: Effect.Effect<boolean> = FiberRef.get(FiberRef.currentTracerEnabled)

/** The id of the request: the one it answers with, else the one it came with. */
const requestIdOf = (request: HttpExchange.Request, response: HttpExchange.Response): string | undefined => {
  const answered = response.headers["x-request-id"]
  return typeof answered === "string" ? answered : HttpExchange.header(request, "x-request-id")
}

/**
 * `handle` in a span of kind server per request, continuing the trace of an
 * incoming `traceparent`.
 */
export const withServerSpan = <E, R>(
  handle: (request: HttpExchange.Request) => Effect.Effect<HttpExchange.Response, E, R>
) =>
(request: HttpExchange.Request): Effect.Effect<HttpExchange.Response, E, R> => {
  const path = Routes.pathOf(request.url)
  const { operation, route } = RequestObserver.routeOf(Routes.match(request.method, path), path)
  const traceparent = HttpExchange.header(request, "traceparent")
  const parent = traceparent === undefined
    ? Option.none()
    : HttpTraceContext.w3c(Headers.unsafeFromRecord({ traceparent }))
  return Effect.useSpan(route === undefined ? request.method : `${request.method} ${route}`, {
    kind: "server",
    captureStackTrace: false,
    ...(Option.isSome(parent) ? { parent: parent.value } : {}),
    attributes: {
      "http.request.method": request.method,
      "url.path": path,
      "animal_store.operation": operation,
      ...(route === undefined ? {} : { "http.route": route })
    }
  }, (span) =>
    Effect.tap(Effect.withParentSpan(handle(request), span), (response) => {
      span.attribute("http.response.status_code", response.status)
      const requestId = requestIdOf(request, response)
      if (requestId !== undefined) span.attribute("http.request.header.x-request-id", requestId)
    }))
}
