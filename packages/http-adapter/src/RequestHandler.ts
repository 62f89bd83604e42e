/**
 * The HTTP API as one function from a request to its response, whatever the
 * host. Every request goes through, in this order:
 *
 * 1. who is asking: the bearer credential and the client address;
 * 2. which route: an operation, a document, or a 404/405 (`Routes`);
 * 3. admission by core (`GuardedPetOperations.admit`): authentication,
 *    per-address limit, ban, rate limits, deprecation. It comes before the
 *    route's own work, so a request without a valid key is refused (401)
 *    before its body is read (415/413/400), and every request counts;
 * 4. the route: an operation's handler (`PetsHandlers`) or a document
 *    (`OpenApiDocument`);
 * 5. the headers of the admission on whatever response (`ResponseHeaders`),
 *    and one access-log line (`AccessLog`).
 *
 * A defect (a bug) is logged and answered 500 without detail.
 *
 * @since 1.0.0
 */
import type { GuardedPetOperations as Guarded, PetOperations } from "@animal-store/core"
import { GuardedPetOperations } from "@animal-store/core"
import { Cause, Clock, Effect } from "effect"
import * as AccessLog from "./AccessLog.js"
import * as ClientAddress from "./ClientAddress.js"
import * as ErrorResponse from "./ErrorResponse.js"
import * as HttpExchange from "./HttpExchange.js"
import * as OpenApiDocument from "./OpenApiDocument.js"
import * as PetsHandlers from "./PetsHandlers.js"
import { MalformedPathParameter, MethodNotAllowed, RouteNotFound } from "./ProtocolError.js"
import * as ResponseHeaders from "./ResponseHeaders.js"
import * as Routes from "./Routes.js"

/**
 * @since 1.0.0
 * @category models
 */
export interface Options {
  /** The base addresses in the OpenAPI document. Default `http://localhost:8080/v1` for both. */
  readonly servers?: OpenApiDocument.Servers | undefined
  /** Peer addresses whose `X-Forwarded-For` is believed. Default none. */
  readonly trustedProxies?: ReadonlyArray<string> | undefined
  /** One access-log line per request. Default `true`. */
  readonly accessLog?: boolean | undefined
}

/**
 * The services the API needs: core's guarded and trusted operations.
 *
 * @since 1.0.0
 * @category models
 */
export type Requirements = GuardedPetOperations.GuardedPetOperations | PetOperations.PetOperations

/**
 * Answers a request; it never fails.
 *
 * @since 1.0.0
 * @category models
 */
export type RequestHandler = (request: HttpExchange.Request) => Effect.Effect<HttpExchange.Response>

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

/** The percent-decoded path parameters; `undefined` when one cannot be decoded. */
const decodeParams = (params: Readonly<Record<string, string>>): Record<string, string> | undefined => {
  const decoded: Record<string, string> = {}
  try {
    for (const name in params) decoded[name] = decodeURIComponent(params[name]!)
  } catch {
    return undefined
  }
  return decoded
}

const defect = (cause: Cause.Cause<unknown>): Effect.Effect<HttpExchange.Response> =>
  Cause.isInterruptedOnly(cause)
    ? Effect.interrupt
    : Effect.as(Effect.logError("Unexpected failure while handling a request", cause), ErrorResponse.internalError)

/**
 * The API on the `GuardedPetOperations` and `PetOperations` of the store.
 *
 * @since 1.0.0
 * @category constructors
 */
export const make = (options?: Options): Effect.Effect<RequestHandler, never, Requirements> =>
  Effect.gen(function*() {
    const guarded = yield* GuardedPetOperations.GuardedPetOperations
    const handlers = yield* PetsHandlers.make
    const documents = yield* OpenApiDocument.responses(options?.servers)
    const clientAddressOf = ClientAddress.make(options?.trustedProxies ?? [])
    const accessLog = options?.accessLog ?? true

    const route = (
      request: HttpExchange.Request,
      matched: Routes.Route,
      path: string,
      admission: Guarded.Admission
    ): Effect.Effect<HttpExchange.Response> => {
      switch (matched._tag) {
        case "NotFound":
          return Effect.succeed(ErrorResponse.make(new RouteNotFound({ path })))
        case "MethodNotAllowed":
          return Effect.succeed(ErrorResponse.make(new MethodNotAllowed({ method: request.method, allow: matched.allow })))
        case "Document":
          return documents(path) ?? Effect.succeed(ErrorResponse.make(new RouteNotFound({ path })))
        case "Operation": {
          const params = decodeParams(matched.params)
          return params === undefined
            ? Effect.succeed(ErrorResponse.make(new MalformedPathParameter()))
            : handlers[matched.operation]({ request, params, principal: admission.principal })
        }
      }
    }

    const serve = (request: HttpExchange.Request, started: number): Effect.Effect<HttpExchange.Response> => {
      const path = Routes.pathOf(request.url)
      const matched = Routes.match(request.method, path)
      const client: Guarded.ClientRequest = {
        credential: credentialOf(HttpExchange.header(request, "authorization")),
        clientAddress: clientAddressOf(request)
      }
      const respond = (response: HttpExchange.Response, meta: Guarded.ResponseMeta, keyId: string | undefined) =>
        Effect.flatMap(Clock.currentTimeMillis, (finished) => {
          const stamped = ResponseHeaders.stamp(response, meta, finished)
          return accessLog
            ? Effect.as(
              AccessLog.log({
                method: request.method,
                path,
                status: stamped.status,
                durationMs: finished - started,
                client: client.clientAddress,
                keyId
              }),
              stamped
            )
            : Effect.succeed(stamped)
        })
      return Effect.matchEffect(guarded.admit(client, matched._tag === "Operation" ? matched.operation : undefined), {
        onFailure: ({ error, meta }) =>
          Effect.flatMap(ErrorResponse.respond(error), (response) => respond(response, meta, undefined)),
        onSuccess: (admission) =>
          Effect.flatMap(
            Effect.catchAllCause(route(request, matched, path, admission), defect),
            (response) => respond(response, admission.meta, admission.principal?.keyId)
          )
      })
    }

    return (request) =>
      Effect.catchAllCause(
        accessLog ? Effect.flatMap(Clock.currentTimeMillis, (started) => serve(request, started)) : serve(request, 0),
        defect
      )
  })
