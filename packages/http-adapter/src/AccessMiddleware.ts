/**
 * The middleware around every request of the HTTP API, in this order:
 *
 * 1. who is asking: the bearer credential and the client address;
 * 2. which route: an operation, a document, or a 404/405 (`Routes`);
 * 3. admission by core (`GuardedPetOperations.admit`): authentication,
 *    per-address limit, ban, rate limits, deprecation. It comes before the
 *    route's own work, so a request without a valid key is refused (401)
 *    before its body is read (415/413/400), and every request counts;
 * 4. the route's handler, when admitted;
 * 5. the headers of the admission on whatever response (`ResponseHeaders`),
 *    and one access-log line (`AccessLog`).
 *
 * @since 1.0.0
 */
import type { GuardedPetOperations as Guarded } from "@animal-store/core"
import { GuardedPetOperations } from "@animal-store/core"
import type * as HttpApp from "@effect/platform/HttpApp"
import type * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as HttpServerError from "@effect/platform/HttpServerError"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import { Cause, Clock, Context, Effect, Option } from "effect"
import * as AccessLog from "./AccessLog.js"
import * as ClientAddress from "./ClientAddress.js"
import * as ErrorResponse from "./ErrorResponse.js"
import * as NodeResponse from "./internal/nodeResponse.js"
import { MalformedPathParameter, MethodNotAllowed, RouteNotFound } from "./ProtocolError.js"
import * as ResponseHeaders from "./ResponseHeaders.js"
import * as Routes from "./Routes.js"

/**
 * @since 1.0.0
 * @category models
 */
export interface Options {
  /** Peer addresses whose `X-Forwarded-For` is believed. */
  readonly trustedProxies: ReadonlyArray<string>
  /** Whether to write one access-log line per request. */
  readonly accessLog: boolean
  /** Serves the admitted operations (`PetsHandlers.router`); the wrapped app serves the documents. */
  readonly operations: HttpApp.Default<HttpServerError.RouteNotFound>
}

/**
 * The admission of the request being handled, for the handlers.
 *
 * @since 1.0.0
 * @category tags
 */
export class RequestAdmission extends Context.Tag("@animal-store/http-adapter/RequestAdmission")<
  RequestAdmission,
  Guarded.Admission
>() {}

/**
 * The token of an `Authorization: Bearer <token>` header (scheme in any
 * case); `undefined` when the header is missing, of another scheme, or empty.
 *
 * @since 1.0.0
 * @category constructors
 */
export const credentialOf = (authorization: string | undefined): string | undefined => {
  const match = authorization === undefined ? null : /^Bearer +(\S+) *$/i.exec(authorization)
  return match === null ? undefined : match[1]
}

/**
 * A failure that escaped a handler: the router's own "no route" or a bug.
 * The routes agree with `Routes`, so the router misses an operation's path
 * only when it cannot read its parameter: a malformed id (400).
 */
const unexpected = (cause: Cause.Cause<unknown>, route: Routes.Route, path: string) => {
  if (Cause.isInterruptedOnly(cause)) return Effect.interrupt
  const failure = Cause.failureOption(cause)
  return Option.isSome(failure) && HttpServerError.isServerError(failure.value) &&
      failure.value._tag === "RouteNotFound"
    ? Effect.succeed(
      ErrorResponse.make(route._tag === "Operation" ? new MalformedPathParameter() : new RouteNotFound({ path }))
    )
    : Effect.as(Effect.logError("Unexpected failure while handling a request", cause), ErrorResponse.internalError)
}

const handle = (
  app: HttpApp.Default<unknown>,
  admission: Guarded.Admission,
  route: Routes.Route,
  method: string,
  path: string
): Effect.Effect<HttpServerResponse.HttpServerResponse, never, HttpServerRequest.HttpServerRequest> => {
  switch (route._tag) {
    case "NotFound":
      return Effect.succeed(ErrorResponse.make(new RouteNotFound({ path })))
    case "MethodNotAllowed":
      return Effect.succeed(ErrorResponse.make(new MethodNotAllowed({ method, allow: route.allow })))
    case "Document":
      return Effect.catchAllCause(app, (cause) => unexpected(cause, route, path))
    case "Operation":
      return app.pipe(
        Effect.provideService(RequestAdmission, admission),
        Effect.catchAllCause((cause) => unexpected(cause, route, path))
      )
  }
}

/**
 * The middleware, on the `GuardedPetOperations` of the store.
 *
 * @since 1.0.0
 * @category constructors
 */
export const make = (
  options: Options
): Effect.Effect<(app: HttpApp.Default) => HttpApp.Default, never, GuardedPetOperations.GuardedPetOperations> =>
  Effect.map(GuardedPetOperations.GuardedPetOperations, (guarded) => (app) =>
    Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => {
      const path = Routes.pathOf(request.url)
      const route = Routes.match(request.method, path)
      const serve = (started: number) =>
        Effect.flatMap(ClientAddress.resolve(request, options.trustedProxies), (clientAddress) => {
          const respond = (
            response: HttpServerResponse.HttpServerResponse,
            meta: Guarded.ResponseMeta,
            keyId: string | undefined
          ) =>
            Effect.flatMap(Clock.currentTimeMillis, (finished) => {
              const written = NodeResponse.write(request, ResponseHeaders.stamp(response, meta, finished))
              return options.accessLog
                ? Effect.zipRight(
                  AccessLog.log({
                    method: request.method,
                    path,
                    status: response.status,
                    durationMs: finished - started,
                    client: clientAddress,
                    keyId
                  }),
                  written
                )
                : written
            })
          const client: Guarded.ClientRequest = {
            credential: credentialOf(request.headers["authorization"]),
            clientAddress
          }
          return Effect.matchEffect(guarded.admit(client, route._tag === "Operation" ? route.operation : undefined), {
            onFailure: ({ error, meta }) =>
              Effect.flatMap(ErrorResponse.respond(error), (response) => respond(response, meta, undefined)),
            onSuccess: (admission) =>
              Effect.flatMap(
                handle(route._tag === "Operation" ? options.operations : app, admission, route, request.method, path),
                (response) => respond(response, admission.meta, admission.principal?.keyId)
              )
          })
        })
      return options.accessLog ? Effect.flatMap(Clock.currentTimeMillis, serve) : serve(0)
    }))
