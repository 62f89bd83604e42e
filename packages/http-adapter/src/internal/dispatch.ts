/**
 * Dispatching a request by its route: a probe answered at once, an operation
 * admitted (`GuardedPetOperations.admit`) and then handled as the admitted key,
 * any other route admitted without a key; every answer finished with its
 * admission's metadata.
 *
 * @internal
 */
import type { GuardedPetOperations, PetOperations } from "@animal-store/core"
import type { Clock } from "effect"
import { Effect } from "effect"
import * as ErrorResponse from "../ErrorResponse.js"
import * as Health from "../Health.js"
import * as HttpExchange from "../HttpExchange.js"
import type * as PetsHandlers from "../PetsHandlers.js"
import { MalformedPathParameter, MethodNotAllowed, RouteNotFound } from "../ProtocolError.js"
import * as Routes from "../Routes.js"
import { defect } from "./defects.js"
import type { Finish, Served } from "./finish.js"

/** What dispatching needs, built once per handler. @internal */
export interface Routing {
  readonly guarded: GuardedPetOperations.GuardedPetOperationsService
  readonly handlers: Record<PetOperations.OperationName, PetsHandlers.Handler>
  readonly documents: (path: string, request: HttpExchange.Request) => Effect.Effect<HttpExchange.Response> | undefined
  readonly readyz: Effect.Effect<HttpExchange.Response>
  readonly report: ErrorResponse.StoreFailureReport
  readonly clientAddressOf: (request: HttpExchange.Request) => string
  readonly credentialOf: (authorization: string | undefined) => string | undefined
  readonly finish: Finish
  /** Whether the time a request is received is read (something records its duration). */
  readonly timed: boolean
}

/** Answers a request on a fiber that reads `clock`, in the trace `traceId` when traced. @internal */
export type Serve = (
  request: HttpExchange.Request,
  requestId: string,
  clock: Clock.Clock,
  traceId: string | undefined
) => Effect.Effect<HttpExchange.Response>

/** The metadata of a probe's response: it was not counted. */
const uncounted: GuardedPetOperations.ResponseMeta = { rateLimit: undefined, deprecation: undefined }

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

/** The answer of a route that is not an operation (needs no key). */
const keyless = (
  documents: Routing["documents"],
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

/** An admitted operation, finished with its admission's metadata and key; a defect answered 500. */
const operation = (
  { finish, handlers }: Routing,
  served: Served,
  matched: Extract<Routes.Route, { readonly _tag: "Operation" }>,
  { meta, principal }: GuardedPetOperations.Admission
): Effect.Effect<HttpExchange.Response> => {
  const params = decodeParams(matched.params)
  const response = params === undefined
    ? Effect.succeed(ErrorResponse.make(new MalformedPathParameter()))
    : handlers[matched.operation]({ request: served.request, params, principal })
  return Effect.matchCauseEffect(response, {
    onFailure: (cause) => Effect.flatMap(defect(cause), (answer) => finish(served, answer, meta, principal.keyId)),
    onSuccess: (answer) => finish(served, answer, meta, principal.keyId)
  })
}

/** @internal */
export const make = (routing: Routing): Serve => {
  const { clientAddressOf, credentialOf, documents, finish, guarded, readyz, report, timed } = routing
  return (request, requestId, clock, traceId) => {
    const path = Routes.pathOf(request.url)
    const matched = Routes.match(request.method, path)
    // `OPTIONS` and the probes need no key: `OPTIONS` counts in the client address's bucket.
    const client: GuardedPetOperations.ClientRequest = {
      credential: matched._tag === "Options" || matched._tag === "Probe"
        ? undefined
        : credentialOf(HttpExchange.header(request, "authorization")),
      clientAddress: clientAddressOf(request)
    }
    const served: Served = {
      request,
      path,
      started: timed ? clock.unsafeCurrentTimeMillis() : 0,
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
    const refused = ({ error, meta, principal }: GuardedPetOperations.GuardedFailure) =>
      Effect.flatMap(ErrorResponse.respond(error, report), (response) => finish(served, response, meta, principal?.keyId, error))
    if (matched._tag === "Operation") {
      return Effect.matchEffect(guarded.admit(client, matched.operation), {
        onFailure: refused,
        onSuccess: (admission) => operation(routing, served, matched, admission)
      })
    }
    return Effect.matchEffect(guarded.admitKeyless(client), {
      onFailure: refused,
      onSuccess: (admission) =>
        Effect.flatMap(
          Effect.catchAllCause(keyless(documents, request, matched, path), defect),
          (response) => finish(served, response, admission.meta, admission.principal?.keyId)
        )
    })
  }
}
