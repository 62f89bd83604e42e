/**
 * Answering a request the host's HTTP parser rejected: admitted (counted) in
 * the peer address's bucket, answered 400 (404/405 for a well-formed request
 * line with an unknown method) with `Connection: close` and the usual headers.
 *
 * @internal
 */
import type { GuardedPetOperations } from "@animal-store/core"
import { Effect } from "effect"
import * as ClientAddress from "../ClientAddress.js"
import * as ErrorResponse from "../ErrorResponse.js"
import type * as HttpExchange from "../HttpExchange.js"
import { InvalidHttp, MethodNotAllowed, RouteNotFound } from "../ProtocolError.js"
import type { Rejection, RejectionHandler } from "../RequestHandler.js"
import * as RequestId from "../RequestId.js"
import * as Routes from "../Routes.js"
import { defect, onFiber } from "./defects.js"
import type { Finish, Served } from "./finish.js"

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

/** `response` with `Connection: close` and the request id `requestId`. */
const closing = (response: HttpExchange.Response, requestId: string): HttpExchange.Response => ({
  status: response.status,
  headers: Object.assign({}, response.headers, { connection: "close", [RequestId.header]: requestId }),
  body: response.body
})

/** @internal */
export const make = (guarded: GuardedPetOperations.GuardedPetOperationsService, finish: Finish): RejectionHandler =>
(rejection) =>
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
    const client: GuardedPetOperations.ClientRequest = {
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
    const close = (response: HttpExchange.Response) => closing(response, served.requestId)
    return Effect.matchEffect(guarded.admitKeyless(client), {
      onFailure: ({ error, meta }) => finish(served, rejected(rejection, path), meta, undefined, error),
      onSuccess: ({ meta }) => finish(served, rejected(rejection, path), meta, undefined)
    }).pipe(Effect.map(close), Effect.catchAllCause(defect), Effect.map(close))
  })
