/**
 * The HTTP API as one function from a request to its response, whatever the
 * host: the route, admission by core (a request without a valid key is
 * refused before its body is read), the operation's handler, then the
 * admission's headers, `X-Request-Id`, CORS and one access line on whatever
 * response. Requests the host's parser rejects are answered by `reject`.
 *
 * @since 1.0.0
 */
import type { PetOperations } from "@animal-store/core"
import { Delivery, GuardedPetOperations, StoreReadiness } from "@animal-store/core"
import { Effect, FiberRef, LogLevel, Option } from "effect"
import type * as AccessLog from "./AccessLog.js"
import * as ClientAddress from "./ClientAddress.js"
import * as Cors from "./Cors.js"
import * as Health from "./Health.js"
import * as HttpExchange from "./HttpExchange.js"
import * as OpenApiDocument from "./OpenApiDocument.js"
import { basePath } from "./PetsApi.js"
import * as PetsHandlers from "./PetsHandlers.js"
import type { InvalidHttp } from "./ProtocolError.js"
import * as RequestId from "./RequestId.js"
import type * as RequestObserver from "./RequestObserver.js"
import { defect, onFiber } from "./internal/defects.js"
import * as Dispatch from "./internal/dispatch.js"
import * as Finish from "./internal/finish.js"
import * as Rejections from "./internal/rejections.js"
import * as StoreFaults from "./internal/storeFaults.js"
import * as Tracing from "./internal/tracing.js"

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
  /**
   * Whether the store may hold the writes of `NodeListeners`' requests for a
   * commit after their turn, each response delivered once durable (record
   * 0068). Default `true`; `false` where several processes write one SQLite
   * file under load (`serve --workers N`): held writes keep its lock for a turn.
   */
  readonly holdWrites?: boolean | undefined
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

/** `response` with the request id `requestId`. */
const withRequestId = (response: HttpExchange.Response, requestId: string): HttpExchange.Response => ({
  status: response.status,
  headers: Object.assign({}, response.headers, { [RequestId.header]: requestId }),
  body: response.body
})

/**
 * The API on the `GuardedPetOperations` and `PetOperations` of the store:
 * the handler of requests and the handler of requests the parser rejected.
 *
 * @since 1.0.0
 * @category constructors
 */
export const makeHandlers = (
  options?: Options
): Effect.Effect<
  {
    readonly handle: RequestHandler
    /** `handle`, whose responses may be `Pending` when `held`: finished by their writer (`internal/finish.ts`). */
    readonly handlePending: RequestHandler
    readonly reject: RejectionHandler
    /** Whether responses wait for the store's `Delivery`: fibers that run `handle` may then be `Delivery.held`. */
    readonly held: boolean
  },
  never,
  Requirements
> =>
  Effect.gen(function*() {
    const guarded = yield* GuardedPetOperations.GuardedPetOperations
    const linkBase = linkBaseOf(options?.baseUrl)
    const readiness = (yield* StoreReadiness.StoreReadiness).check
    const report = StoreFaults.make(readiness).report
    const minimumLevel = yield* FiberRef.get(FiberRef.currentMinimumLogLevel)
    // A store whose writes are durable when its calls complete makes nothing wait.
    const delivery = Option.getOrUndefined(
      Option.filter(yield* Effect.serviceOption(Delivery.Delivery), (delivery) => delivery !== Delivery.immediate)
    )
    const settings: Finish.Settings = {
      linkBase,
      cors: Cors.make(options?.corsOrigins),
      accessLog: LogLevel.Info.ordinal >= minimumLevel.ordinal ? options?.accessLog ?? true : false,
      probeLog: LogLevel.Debug.ordinal >= minimumLevel.ordinal,
      observe: options?.observe,
      delivery,
      report
    }
    const finish = Finish.make(settings)
    const routing: Dispatch.Routing = {
      guarded,
      handlers: yield* PetsHandlers.make(linkBase, report),
      documents: yield* OpenApiDocument.responses(options?.servers),
      readyz: yield* Health.readiness(readiness),
      report,
      clientAddressOf: ClientAddress.make(options?.trustedProxies ?? []),
      credentialOf,
      finish,
      timed: Finish.records(settings)
    }
    // A server span per request only when the host has its tracer enabled.
    const traced = yield* Tracing.enabled
    const untraced = (serve: Dispatch.Serve): RequestHandler => (request) => {
      const requestId = RequestId.of(HttpExchange.header(request, RequestId.header))
      return Effect.catchAllCause(
        onFiber((clock, span) => serve(request, requestId, clock, traced ? span?.traceId : undefined)),
        (cause) => Effect.map(defect(cause), (response) => withRequestId(response, requestId))
      )
    }
    const plain = untraced(Dispatch.make(routing))
    const handle = traced ? Tracing.withServerSpan(plain) : plain
    const held = delivery !== undefined && options?.holdWrites !== false
    return {
      handle,
      handlePending: held && !traced ? untraced(Dispatch.make({ ...routing, finish: Finish.make(settings, true) })) : handle,
      reject: Rejections.make(guarded, finish),
      held
    }
  })

/**
 * The API on the `GuardedPetOperations` and `PetOperations` of the store.
 *
 * @since 1.0.0
 * @category constructors
 */
export const make = (options?: Options): Effect.Effect<RequestHandler, never, Requirements> =>
  Effect.map(makeHandlers(options), ({ handle }) => handle)
