/**
 * Finishing a response: once the store's writes for it are durable (a 503
 * when they were lost), the admission's headers, the request id and CORS on
 * it, then the request's access line and its observation. For speed (record
 * 0072), a Node listener's request fiber ends with a `Pending` response,
 * finished by its writer once the writes are durable: the fiber never waits.
 *
 * @internal
 */
import type { ApiError, GuardedPetOperations, StoreError } from "@animal-store/core"
import { Delivery } from "@animal-store/core"
import type { Clock } from "effect"
import { Effect } from "effect"
import * as AccessLog from "../AccessLog.js"
import type * as Cors from "../Cors.js"
import * as ErrorResponse from "../ErrorResponse.js"
import type * as HttpExchange from "../HttpExchange.js"
import * as RequestId from "../RequestId.js"
import * as RequestObserver from "../RequestObserver.js"
import * as ResponseHeaders from "../ResponseHeaders.js"
import type * as Routes from "../Routes.js"

/** What finishing needs of a request beyond its response: known once it has been read. @internal */
export interface Served {
  readonly request: HttpExchange.Request
  readonly path: string
  /** When it was received; 0 when nothing records its duration. */
  readonly started: number
  readonly client: GuardedPetOperations.ClientRequest
  /** `undefined`: a request the parser rejected. */
  readonly matched: Routes.Route | undefined
  readonly clock: Clock.Clock
  readonly requestId: string
  /** The id of the request's trace, when traced. */
  readonly traceId: string | undefined
}

/** How responses are finished. @internal */
export interface Settings {
  readonly linkBase: string
  readonly cors: Cors.Cors | undefined
  /** `false`: no access line (off, or below the minimum log level). */
  readonly accessLog: boolean | AccessLog.Writer
  /** Whether a probe's line (Debug) passes the minimum log level. */
  readonly probeLog: boolean
  readonly observe: RequestObserver.Observer | undefined
  /** When the store's writes are durable: responses wait for it (`undefined`: durable when its calls complete). */
  readonly delivery: Delivery.DeliveryService | undefined
  /** How a store failure is reported: a response whose writes were lost is one. */
  readonly report: ErrorResponse.StoreFailureReport
}

/** Finishes `response`, answered with `meta` as the key `keyId` (failing with `error`, a refusal). @internal */
export type Finish = (
  served: Served,
  response: HttpExchange.Response,
  meta: GuardedPetOperations.ResponseMeta,
  keyId: string | undefined,
  error?: ApiError.ApiError | StoreError.StoreError
) => Effect.Effect<HttpExchange.Response>

const pendingId: unique symbol = Symbol.for("@animal-store/http-adapter/internal/finish/Pending")

/**
 * A response computed before the store's writes for it are durable: `whenFinished` calls back once
 * they are, with the finished response, or with the effect that answers their loss. @internal
 */
export interface Pending extends HttpExchange.Response {
  readonly [pendingId]: (
    finished: (done: HttpExchange.Response | Effect.Effect<HttpExchange.Response>) => void
  ) => void
}

/** Whether `response` is `Pending`. @internal */
export const isPending = (response: HttpExchange.Response): response is Pending => pendingId in response

/** Calls back with `response` finished: at once, or once a `Pending` one is. @internal */
export const whenFinished = (
  response: HttpExchange.Response,
  finished: (done: HttpExchange.Response | Effect.Effect<HttpExchange.Response>) => void
): void => {
  if (isPending(response)) response[pendingId](finished)
  else finished(response)
}

/** The access line's path: `path` (the request's, from `url`) with the query string of `url`. */
const withQuery = (url: string, path: string): string => {
  const query = url.indexOf("?")
  return query === -1 ? path : path + url.slice(query)
}

/** Whether finishing records anything: an access line or an observation. @internal */
export const records = (settings: Settings): boolean => settings.accessLog !== false || settings.observe !== undefined

/**
 * `pending`: whether responses whose writes are not yet durable end their fiber as `Pending` (only
 * where their writer finishes them: a Node listener's, untraced, with an access log written as text).
 *
 * @internal
 */
export const make = (
  { accessLog, cors, delivery, linkBase, observe, probeLog, report }: Settings,
  pending = false
): Finish => {
  const observed = (
    entry: AccessLog.Entry,
    served: Served,
    meta: GuardedPetOperations.ResponseMeta,
    response: HttpExchange.Response,
    error: ApiError.ApiError | StoreError.StoreError | undefined
  ) => {
    const { operation, route } = RequestObserver.routeOf(served.matched, served.path)
    observe!({
      method: entry.method,
      path: entry.path,
      status: entry.status,
      durationMs: entry.durationMs,
      client: entry.client,
      keyId: entry.keyId,
      requestId: entry.requestId,
      traceId: entry.traceId,
      probe: entry.probe,
      operation,
      route,
      meta,
      response,
      error
    })
  }

  /** The stamped response, recorded; with its access line's entry when the Effect logger writes it. */
  const stampAndRecord = (
    served: Served,
    response: HttpExchange.Response,
    meta: GuardedPetOperations.ResponseMeta,
    keyId: string | undefined,
    error: ApiError.ApiError | StoreError.StoreError | undefined
  ): readonly [HttpExchange.Response, AccessLog.Entry | undefined] => {
    const { matched, request } = served
    const finished = served.clock.unsafeCurrentTimeMillis()
    const stamped = ResponseHeaders.stamp(response, meta, finished, linkBase)
    const headers = stamped.headers as Record<string, string>
    headers[RequestId.header] = served.requestId
    if (cors !== undefined) {
      cors(request, headers, matched !== undefined && matched._tag === "Options" ? matched.allow : undefined)
    }
    const probe = matched !== undefined && matched._tag === "Probe"
    const logged = accessLog !== false && (!probe || probeLog)
    if (!logged && observe === undefined) return [stamped, undefined]
    const entry: AccessLog.Entry = {
      method: request.method,
      path: withQuery(request.url, served.path),
      status: stamped.status,
      durationMs: finished - served.started,
      client: served.client.clientAddress,
      keyId,
      requestId: served.requestId,
      traceId: served.traceId,
      probe: probe ? true : undefined
    }
    if (observe !== undefined) observed(entry, served, meta, stamped, error)
    if (!logged) return [stamped, undefined]
    if (accessLog === true) return [stamped, entry]
    accessLog(entry, new Date(finished))
    return [stamped, undefined]
  }

  const finishNow: Finish = (served, response, meta, keyId, error) => {
    const [stamped, entry] = stampAndRecord(served, response, meta, keyId, error)
    return entry === undefined ? Effect.succeed(stamped) : Effect.as(AccessLog.log(entry), stamped)
  }
  if (delivery === undefined) return finishNow
  /** The answer to writes that were lost: a 503, reported, finished without the admission's counts. */
  const finishLost = (
    served: Served,
    meta: GuardedPetOperations.ResponseMeta,
    keyId: string | undefined,
    lost: StoreError.StoreError
  ) =>
    Effect.flatMap(
      ErrorResponse.respond(lost, report),
      (refused) => finishNow(served, refused, { rateLimit: undefined, deprecation: meta.deprecation }, keyId, lost)
    )
  if (pending && accessLog !== true) {
    return (served, response, meta, keyId, error) =>
      Effect.suspend(() => {
        /** How the writes ended (`null`: not yet), and who waits for it. */
        let ended: StoreError.StoreError | undefined | null = null
        let waiting: ((lost: StoreError.StoreError | undefined) => void) | undefined
        delivery.whenDurable((lost) => {
          if (waiting === undefined) ended = lost
          else waiting(lost)
        })
        if (ended === null) {
          const finishing: Pending = {
            status: response.status,
            headers: response.headers,
            body: response.body,
            [pendingId]: (finished) => {
              waiting = (lost) =>
                finished(
                  lost === undefined
                    ? stampAndRecord(served, response, meta, keyId, error)[0]
                    : finishLost(served, meta, keyId, lost)
                )
              if (ended !== null) waiting(ended)
            }
          }
          return Effect.succeed(finishing)
        }
        return ended === undefined ? finishNow(served, response, meta, keyId, error) : finishLost(served, meta, keyId, ended)
      })
  }
  const durable = Delivery.durable(delivery)
  return (served, response, meta, keyId, error) =>
    Effect.matchEffect(durable, {
      onSuccess: () => finishNow(served, response, meta, keyId, error),
      onFailure: (lost) => finishLost(served, meta, keyId, lost)
    })
}
