/**
 * The response of every failure: its `Error` body with the status of its code
 * (`ProtocolError.statusByCode`) and the headers some carry: `WWW-Authenticate`
 * on 401, `Retry-After` on 429 and 503, `Allow` on 405, `Connection: close` on
 * 413. A store failure discloses nothing: 503 when the store cannot be
 * reached, else 500.
 *
 * @since 1.0.0
 */
import { ApiError, StoreError } from "@animal-store/core"
import { Effect } from "effect"
import * as HttpExchange from "./HttpExchange.js"
import * as Shortcuts from "./internal/shortcuts.js"
import type { ErrorBody, ProtocolError } from "./ProtocolError.js"
import { makeBody } from "./ProtocolError.js"
import * as Routes from "./Routes.js"

/** `Allow` of a `CONNECT`: every method the server serves somewhere, as `OPTIONS *` answers. */
const allMethods = Routes.allMethods.join(", ")

/**
 * Everything a request can fail with.
 *
 * @since 1.0.0
 * @category models
 */
export type Failure = ApiError.ApiError | ProtocolError | StoreError.StoreError

/**
 * The realm of the bearer challenge.
 *
 * @since 1.0.0
 * @category constants
 */
export const realm = "animal-store"

const internalErrorBody = makeBody(ApiError.internalError.code, ApiError.internalError.message)

const serviceUnavailableBody = makeBody(ApiError.serviceUnavailable.code, ApiError.serviceUnavailable.message)

/**
 * The `Error` body of a failure: what it tells (as `ApiError.describe`) with
 * the status of its code.
 *
 * @since 1.0.0
 * @category conversions
 */
export const body = (failure: Failure): ErrorBody =>
  failure._tag === "StoreError"
    ? StoreError.isUnavailable(failure) ? serviceUnavailableBody : internalErrorBody
    : failure._tag === "InvalidRequest"
    ? makeBody(failure.code, failure.message, failure.details)
    : makeBody(failure.code, failure.message)

const headers = (failure: Failure): Record<string, string> => {
  switch (failure._tag) {
    case "Unauthorized":
      return {
        "www-authenticate": failure.reason === "missing"
          ? `Bearer realm="${realm}"`
          : `Bearer realm="${realm}", error="invalid_token"`
      }
    case "RateLimited":
    case "ApiKeyBanned":
      return { "retry-after": String(failure.retryAfter) }
    case "MethodNotAllowed":
      return { allow: failure.allow.join(", ") }
    case "InvalidHttp":
      return failure.reason === "connect" ? { allow: allMethods } : {}
    case "PayloadTooLarge":
      return { connection: "close" }
    case "StoreError":
      return StoreError.isUnavailable(failure) ? { "retry-after": String(StoreError.retryAfterSeconds) } : {}
    default:
      return {}
  }
}

/**
 * The response to a failure.
 *
 * @since 1.0.0
 * @category constructors
 */
export const make = (failure: Failure): HttpExchange.Response =>
  failure._tag === "Unauthorized" ? unauthorizedResponse(failure) : fromFailure(failure)

const fromFailure = (failure: Failure): HttpExchange.Response => {
  const errorBody = body(failure)
  return HttpExchange.json(errorBody, { status: errorBody.status, headers: headers(failure) })
}

/** Core makes each refusal of a key once per reason: their responses are made once too. */
const unauthorizedResponse = Shortcuts.byInstance(fromFailure)

/**
 * The response to a defect (a bug): a 500 that discloses nothing.
 *
 * @since 1.0.0
 * @category constructors
 */
export const internalError: HttpExchange.Response = HttpExchange.json(internalErrorBody, { status: 500 })

/**
 * The name of the counter of store faults, counted once when each starts
 * (decisions.md "Faults").
 *
 * @since 1.0.0
 * @category metrics
 */
export const faultsMetric = "animal_store.store.faults"

/**
 * The name of the counter of requests answered with a store failure, tagged
 * with its `reason`; counted for each request the handlers answered so.
 *
 * @since 1.0.0
 * @category metrics
 */
export const storeErrorsMetric = "animal_store.store.errors"

/**
 * What is told of a store failure before its response: by default it is
 * logged (its message only); the request handlers log each fault once when
 * it starts and once when it ends.
 *
 * @since 1.0.0
 * @category models
 */
export type StoreFailureReport = (error: StoreError.StoreError) => Effect.Effect<void>

const logEach: StoreFailureReport = (error) => Effect.logError(`Store failure (${error.reason}): ${error.message}`)

/**
 * The response to a failure, as an effect: a store failure is reported
 * (`report`, by default logged) before its 500 or 503 is answered.
 *
 * @since 1.0.0
 * @category constructors
 */
export const respond = (failure: Failure, report: StoreFailureReport = logEach): Effect.Effect<HttpExchange.Response> =>
  failure._tag === "StoreError" ? Effect.as(report(failure), make(failure)) : Effect.succeed(make(failure))

/**
 * Answers the failures of `effect` with their responses (`respond`).
 *
 * @since 1.0.0
 * @category combinators
 */
export const recover = <R>(
  effect: Effect.Effect<HttpExchange.Response, Failure, R>,
  report: StoreFailureReport = logEach
): Effect.Effect<HttpExchange.Response, never, R> => Effect.catchAll(effect, (failure) => respond(failure, report))
