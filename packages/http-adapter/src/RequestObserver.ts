/**
 * What a host learns of every request for its metrics (record 0031): the
 * route, the rate-limit decision and the failure it was answered with.
 *
 * @since 1.0.0
 */
import type { ApiError, GuardedPetOperations, StoreError } from "@animal-store/core"
import type * as AccessLog from "./AccessLog.js"
import type * as HttpExchange from "./HttpExchange.js"
import * as Routes from "./Routes.js"

/**
 * @since 1.0.0
 * @category models
 */
export interface Observation extends AccessLog.Entry {
  /** The operation id, or `document`, `options`, `not_found`, `method_not_allowed`, `rejected`. */
  readonly operation: string
  /** The path template of the route (`/v1/pets/{petId}`); `undefined` when no route matched. */
  readonly route: string | undefined
  /** The rate-limit decision, deprecation and replay of the response. */
  readonly meta: GuardedPetOperations.ResponseMeta
  /** The response as sent, headers included (`Idempotent-Replayed`, `X-Request-Id`). */
  readonly response: HttpExchange.Response
  /** The failure the request was answered with, when core refused or failed it. */
  readonly error: ApiError.ApiError | StoreError.StoreError | undefined
}

/**
 * Called once per request when it is answered, on its fiber; it must not block or throw.
 *
 * @since 1.0.0
 * @category models
 */
export type Observer = (observation: Observation) => void

const templates = new Map(
  Routes.entries.map((entry) => [
    entry.route._tag === "Operation" ? entry.route.operation : entry.path,
    entry.path.replace(/:([^/]+)/g, "{$1}")
  ])
)

const kinds = { Options: "options", NotFound: "not_found", MethodNotAllowed: "method_not_allowed" } as const

/**
 * The operation and route template of a matched route (`undefined`: rejected by the parser).
 *
 * @since 1.0.0
 * @category constructors
 */
export const routeOf = (
  matched: Routes.Route | undefined,
  path: string
): { readonly operation: string; readonly route: string | undefined } => {
  if (matched === undefined) return { operation: "rejected", route: undefined }
  switch (matched._tag) {
    case "Operation":
      return { operation: matched.operation, route: templates.get(matched.operation) }
    case "Document":
      return { operation: "document", route: templates.get(path) }
    case "Probe":
      return { operation: matched.probe, route: `/${matched.probe}` }
    default:
      return { operation: kinds[matched._tag], route: undefined }
  }
}
