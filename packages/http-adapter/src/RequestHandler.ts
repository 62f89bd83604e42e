/**
 * The HTTP API as one function from a request to its response, whatever the
 * host. Every request goes through, in this order:
 *
 * 1. who is asking: the bearer credential and the client address;
 * 2. which route: an operation (`HEAD` of a `GET` route is that route), a
 *    document, `OPTIONS`, a probe (`Health`: answered at once, not counted),
 *    or a 404/405 (`Routes`);
 * 3. admission by core: an operation through `GuardedPetOperations.run`
 *    (authentication, per-address limit, ban, rate limits, deprecation, then
 *    the handler as the admitted key), so a request without a valid key is
 *    refused (401) before its body is read (415/413/400); any other route
 *    through `admitKeyless`, so every request counts. `OPTIONS` needs no key
 *    and counts in the client address's bucket;
 * 4. the route: an operation's handler (`PetsHandlers`), a document
 *    (`OpenApiDocument`), or 204 with `Allow` for `OPTIONS`;
 * 5. the headers of the admission on whatever response (`ResponseHeaders`),
 *    its `X-Request-Id` (`RequestId`), the CORS headers when enabled
 *    (`Cors`), and one access-log line (`AccessLog`) when the minimum log
 *    level lets it through (Info; a probe's, Debug).
 *
 * Requests the host's HTTP parser rejects go through `reject`: admitted
 * (counted) in the client address's bucket, answered 400 (or 404/405 for a
 * well-formed request line with an unknown method) with the same headers.
 *
 * A defect (a bug) is logged and answered 500 without detail.
 *
 * @since 1.0.0
 */
import type { ApiError, ApiKey, GuardedPetOperations as Guarded, PetOperations, StoreError } from "@animal-store/core"
import { GuardedPetOperations, StoreReadiness } from "@animal-store/core"
import type { Tracer } from "effect"
import { Cause, Clock, Context, Effect, FiberRef, LogLevel } from "effect"
import * as AccessLog from "./AccessLog.js"
import * as ClientAddress from "./ClientAddress.js"
import * as Cors from "./Cors.js"
import * as ErrorResponse from "./ErrorResponse.js"
import * as Health from "./Health.js"
import * as HttpExchange from "./HttpExchange.js"
import * as OpenApiDocument from "./OpenApiDocument.js"
import { basePath } from "./PetsApi.js"
import * as PetsHandlers from "./PetsHandlers.js"
import { InvalidHttp, MalformedPathParameter, MethodNotAllowed, RouteNotFound } from "./ProtocolError.js"
import * as RequestId from "./RequestId.js"
import * as RequestObserver from "./RequestObserver.js"
import * as ResponseHeaders from "./ResponseHeaders.js"
import * as Routes from "./Routes.js"
import * as Tracing from "./internal/tracing.js"
import * as StoreFaults from "./internal/storeFaults.js"

/**
 * @since 1.0.0
 * @category models
 */
export interface Options {
  /**
   * The base addresses in the OpenAPI document. One that is not given is the
   * address the request was received on (`http://<host>:<port>/v1`).
   */
  readonly servers?: OpenApiDocument.ConfiguredServers | undefined
  /**
   * The base address clients reach this process at (its environment's, for
   * example `https://api.example.com/animal/v1` behind a proxy that strips
   * `/animal`): its path prefixes `Location` and `Link`. Default: `/v1`.
   */
  readonly baseUrl?: string | undefined
  /** Origins allowed by CORS (`*` for any); CORS is off when empty or absent. */
  readonly corsOrigins?: ReadonlyArray<string> | undefined
  /** Peer addresses whose `X-Forwarded-For` is believed. Default none. */
  readonly trustedProxies?: ReadonlyArray<string> | undefined
  /**
   * One access-log line per request: `true` (the default) logs it with the
   * host's Effect logger, a `Writer` writes it itself, `false` writes none.
   * Either way a line is written only when the minimum log level of the
   * fiber that makes the handler lets it through: Info, or Debug for a probe.
   */
  readonly accessLog?: boolean | AccessLog.Writer | undefined
  /** Called with every request as it is answered (`RequestObserver`), whether the access log is on or off. */
  readonly observe?: RequestObserver.Observer | undefined
}

/**
 * A request the host's HTTP parser rejected: the peer address, why, and its
 * request line when that much was well-formed (an unknown method).
 *
 * @since 1.0.0
 * @category models
 */
export interface Rejection {
  readonly remoteAddress: string | undefined
  readonly reason: InvalidHttp["reason"]
  readonly requestLine?: { readonly method: string; readonly target: string } | undefined
}

/**
 * Answers a rejected request; it never fails. The response carries
 * `Connection: close` and a new `X-Request-Id`.
 *
 * @since 1.0.0
 * @category models
 */
export type RejectionHandler = (rejection: Rejection) => Effect.Effect<HttpExchange.Response>

/**
 * The services the API needs: core's guarded and trusted operations, and the
 * store's readiness (all in `AnimalStore.Services`).
 *
 * @since 1.0.0
 * @category models
 */
export type Requirements =
  | GuardedPetOperations.GuardedPetOperations
  | PetOperations.PetOperations
  | StoreReadiness.StoreReadiness

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

/**
 * The path of a base address (`https://api.example.com/animal/v1` gives
 * `/animal/v1`), without a trailing slash; `/v1` when absent or unreadable.
 *
 * @since 1.0.0
 * @category constructors
 */
export const linkBaseOf = (baseUrl: string | undefined): string => {
  if (baseUrl === undefined) return basePath
  try {
    const path = new URL(baseUrl).pathname.replace(/\/+$/, "")
    return path === "" ? basePath : path
  } catch {
    return basePath
  }
}

/** The percent-decoded path parameters; `undefined` when one cannot be decoded. */
const decodeParams = (params: Readonly<Record<string, string>>): Record<string, string> | undefined => {
  const decoded: Record<string, string> = {}
  try {
    for (const name in params) {
      const value = params[name]!
      decoded[name] = value.includes("%") ? decodeURIComponent(value) : value
    }
  } catch {
    return undefined
  }
  return decoded
}

/** `f` with the clock and the current span of the fiber that runs it, in one step of that fiber. */
const onFiber = <A>(f: (clock: Clock.Clock, span: Tracer.AnySpan | undefined) => Effect.Effect<A>): Effect.Effect<A> =>
  Effect.withFiberRuntime((fiber) => f(Context.get(fiber.currentDefaultServices, Clock.Clock), fiber.currentSpan))

/** The access line's path: `path` (the request's, from `url`) with the query string of `url`. */
const withQuery = (url: string, path: string): string => {
  const query = url.indexOf("?")
  return query === -1 ? path : path + url.slice(query)
}

const defect = (cause: Cause.Cause<unknown>): Effect.Effect<HttpExchange.Response> =>
  Cause.isInterruptedOnly(cause)
    ? Effect.interrupt
    : Effect.as(Effect.logError("Unexpected failure while handling a request", cause), ErrorResponse.internalError)

/** `response` with the request id `requestId`. */
const withRequestId = (response: HttpExchange.Response, requestId: string): HttpExchange.Response => ({
  status: response.status,
  headers: Object.assign({}, response.headers, { [RequestId.header]: requestId }),
  body: response.body
})

/** The metadata of a probe's response: it was not counted. */
const uncounted: Guarded.ResponseMeta = { rateLimit: undefined, deprecation: undefined }

/**
 * The API on the `GuardedPetOperations` and `PetOperations` of the store:
 * the handler of requests and the handler of requests the parser rejected.
 *
 * @since 1.0.0
 * @category constructors
 */
export const makeHandlers = (
  options?: Options
): Effect.Effect<{ readonly handle: RequestHandler; readonly reject: RejectionHandler }, never, Requirements> =>
  Effect.gen(function*() {
    const guarded = yield* GuardedPetOperations.GuardedPetOperations
    const linkBase = linkBaseOf(options?.baseUrl)
    const readiness = (yield* StoreReadiness.StoreReadiness).check
    const faults = StoreFaults.make(readiness)
    const handlers = yield* PetsHandlers.make(linkBase, faults.report)
    const documents = yield* OpenApiDocument.responses(options?.servers)
    const clientAddressOf = ClientAddress.make(options?.trustedProxies ?? [])
    const cors = Cors.make(options?.corsOrigins)
    const readyz = yield* Health.readiness(readiness)
    const minimumLevel = yield* FiberRef.get(FiberRef.currentMinimumLogLevel)
    const accessLog = LogLevel.Info.ordinal >= minimumLevel.ordinal ? options?.accessLog ?? true : false
    const probeLog = LogLevel.Debug.ordinal >= minimumLevel.ordinal
    const observe = options?.observe
    // A server span per request only when the host has tracing enabled with an exporting tracer.
    const traced = yield* Tracing.enabled

    /** A route that is not an operation: needs no key. */
    const keyless = (
      request: HttpExchange.Request,
      matched: Exclude<Routes.Route, { readonly _tag: "Operation" | "Probe" }>,
      path: string
    ): Effect.Effect<HttpExchange.Response> => {
      switch (matched._tag) {
        case "NotFound":
          return Effect.succeed(ErrorResponse.make(new RouteNotFound({ path })))
        case "MethodNotAllowed":
          return Effect.succeed(ErrorResponse.make(new MethodNotAllowed({ method: request.method, allow: matched.allow })))
        case "Options":
          return Effect.succeed({ status: 204, headers: { allow: matched.allow.join(", ") }, body: "" })
        case "Document":
          return documents(path, request) ?? Effect.succeed(ErrorResponse.make(new RouteNotFound({ path })))
      }
    }

    /** An operation, as the key it was admitted as; the key's id goes to the access log. */
    const operation = (
      request: HttpExchange.Request,
      matched: Extract<Routes.Route, { readonly _tag: "Operation" }>,
      principal: ApiKey.Principal
    ): Effect.Effect<{ readonly response: HttpExchange.Response; readonly keyId: string }> => {
      const params = decodeParams(matched.params)
      const response = params === undefined
        ? Effect.succeed(ErrorResponse.make(new MalformedPathParameter()))
        : handlers[matched.operation]({ request, params, principal })
      return Effect.map(Effect.catchAllCause(response, defect), (response) => ({ response, keyId: principal.keyId }))
    }

    /** What `finish` needs of the request beyond its response: known once it has been read. */
    interface Served {
      readonly request: HttpExchange.Request
      readonly path: string
      readonly started: number
      readonly client: Guarded.ClientRequest
      readonly matched: Routes.Route | undefined
      readonly clock: Clock.Clock
      readonly requestId: string
      /** The id of the request's trace, when traced. */
      readonly traceId: string | undefined
    }

    /** The headers of the admission, the request id, CORS, and the access-log line. */
    const finish = (
      served: Served,
      response: HttpExchange.Response,
      meta: Guarded.ResponseMeta,
      keyId: string | undefined,
      error?: ApiError.ApiError | StoreError.StoreError
    ): Effect.Effect<HttpExchange.Response> => {
      const { client, matched, request } = served
      const finished = served.clock.unsafeCurrentTimeMillis()
      const stamped = ResponseHeaders.stamp(response, meta, finished, linkBase)
      const headers = stamped.headers as Record<string, string>
      headers[RequestId.header] = served.requestId
      if (cors !== undefined) {
        cors(request, headers, matched !== undefined && matched._tag === "Options" ? matched.allow : undefined)
      }
      const probe = matched !== undefined && matched._tag === "Probe"
      const logged = accessLog !== false && (!probe || probeLog)
      if (!logged && observe === undefined) return Effect.succeed(stamped)
      const entry: AccessLog.Entry = {
        method: request.method,
        path: withQuery(request.url, served.path),
        status: stamped.status,
        durationMs: finished - served.started,
        client: client.clientAddress,
        keyId,
        requestId: served.requestId,
        traceId: served.traceId,
        probe: probe ? true : undefined
      }
      if (observe !== undefined) {
        const { operation, route } = RequestObserver.routeOf(matched, served.path)
        observe({
          method: entry.method,
          path: entry.path,
          status: entry.status,
          durationMs: entry.durationMs,
          client: entry.client,
          keyId,
          requestId: entry.requestId,
          traceId: entry.traceId,
          probe: entry.probe,
          operation,
          route,
          meta,
          response: stamped,
          error
        })
      }
      if (!logged) return Effect.succeed(stamped)
      if (accessLog === true) return Effect.as(AccessLog.log(entry), stamped)
      accessLog(entry, new Date(finished))
      return Effect.succeed(stamped)
    }

    /** Answers a request on a fiber that reads `clock`, in the trace `traceId` when traced. */
    const serve = (
      request: HttpExchange.Request,
      requestId: string,
      clock: Clock.Clock,
      traceId: string | undefined
    ): Effect.Effect<HttpExchange.Response> => {
      const path = Routes.pathOf(request.url)
      const matched = Routes.match(request.method, path)
      const clientAddress = clientAddressOf(request)
      // `OPTIONS` and the probes need no key: `OPTIONS` counts in the client address's bucket.
      const client: Guarded.ClientRequest = {
        credential: matched._tag === "Options" || matched._tag === "Probe"
          ? undefined
          : credentialOf(HttpExchange.header(request, "authorization")),
        clientAddress
      }
      const served: Served = {
        request,
        path,
        started: accessLog === false && observe === undefined ? 0 : clock.unsafeCurrentTimeMillis(),
        client,
        matched,
        clock,
        requestId,
        traceId
      }
      if (matched._tag === "Probe") {
        return matched.probe === "healthz"
          ? finish(served, Health.ok, uncounted, undefined)
          : Effect.flatMap(readyz, (response) => finish(served, response, uncounted, undefined))
      }
      const refused = ({ error, meta, principal }: Guarded.GuardedFailure) =>
        Effect.flatMap(ErrorResponse.respond(error, faults.report), (response) => finish(served, response, meta, principal?.keyId, error))
      if (matched._tag === "Operation") {
        return Effect.matchEffect(
          guarded.run(client, matched.operation, (principal) => operation(request, matched, principal)),
          {
            onFailure: refused,
            onSuccess: ({ meta, value }) => finish(served, value.response, meta, value.keyId)
          }
        )
      }
      return Effect.matchEffect(guarded.admitKeyless(client), {
        onFailure: refused,
        onSuccess: (admission) =>
          Effect.flatMap(
            Effect.catchAllCause(keyless(request, matched, path), defect),
            (response) => finish(served, response, admission.meta, admission.principal?.keyId)
          )
      })
    }

    const untraced: RequestHandler = (request) => {
      const requestId = RequestId.of(HttpExchange.header(request, RequestId.header))
      return Effect.catchAllCause(
        onFiber((clock, span) => serve(request, requestId, clock, traced ? span?.traceId : undefined)),
        (cause) => Effect.map(defect(cause), (response) => withRequestId(response, requestId))
      )
    }
    const handle = traced ? Tracing.withServerSpan(untraced) : untraced

    /** The answer to a rejected request: 405/404 for a well-formed line with an unknown method, else 400. */
    const rejected = (rejection: Rejection, path: string | undefined): HttpExchange.Response => {
      const line = rejection.requestLine
      if (line !== undefined && path !== undefined) {
        const matched = Routes.match(line.method, path)
        if (matched._tag === "MethodNotAllowed") {
          return ErrorResponse.make(new MethodNotAllowed({ method: line.method, allow: matched.allow }))
        }
        if (matched._tag === "NotFound") return ErrorResponse.make(new RouteNotFound({ path }))
      }
      return ErrorResponse.make(new InvalidHttp({ reason: rejection.reason }))
    }

    const reject: RejectionHandler = (rejection) =>
      onFiber((clock) => {
        const path = rejection.requestLine === undefined ? undefined : Routes.pathOf(rejection.requestLine.target)
        const request: HttpExchange.Request = {
          method: rejection.requestLine?.method ?? "-",
          url: rejection.requestLine?.target ?? "-",
          headers: {},
          remoteAddress: rejection.remoteAddress,
          body: () => Effect.succeed(new Uint8Array(0))
        }
        // No header was read: the peer is the client, in its address's bucket.
        const client: Guarded.ClientRequest = {
          credential: undefined,
          clientAddress: ClientAddress.normalize(rejection.remoteAddress ?? ClientAddress.unknown)
        }
        const served: Served = {
          request,
          path: path ?? "-",
          started: clock.unsafeCurrentTimeMillis(),
          client,
          matched: undefined,
          clock,
          requestId: RequestId.generate(),
          traceId: undefined
        }
        const closing = (response: HttpExchange.Response): HttpExchange.Response => ({
          status: response.status,
          headers: Object.assign({}, response.headers, { connection: "close", [RequestId.header]: served.requestId }),
          body: response.body
        })
        return Effect.matchEffect(guarded.admitKeyless(client), {
          onFailure: ({ error, meta }) => finish(served, rejected(rejection, path), meta, undefined, error),
          onSuccess: ({ meta }) => finish(served, rejected(rejection, path), meta, undefined)
        }).pipe(Effect.map(closing), Effect.catchAllCause(defect), Effect.map(closing))
      })

    return { handle, reject }
  })

/**
 * The API on the `GuardedPetOperations` and `PetOperations` of the store.
 *
 * @since 1.0.0
 * @category constructors
 */
export const make = (options?: Options): Effect.Effect<RequestHandler, never, Requirements> =>
  Effect.map(makeHandlers(options), ({ handle }) => handle)
