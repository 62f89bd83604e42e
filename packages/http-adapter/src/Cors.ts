/**
 * CORS, off unless origins are configured: a matching `Origin` gets
 * `Access-Control-Allow-Origin` and the exposed headers, a preflight also the
 * path's methods, the allowed headers and a max age; another origin gets none.
 *
 * @since 1.0.0
 */
import * as HttpExchange from "./HttpExchange.js"

/**
 * The headers exposed to scripts.
 *
 * @since 1.0.0
 * @category constants
 */
export const exposedHeaders: ReadonlyArray<string> = [
  "X-RateLimit-Limit",
  "X-RateLimit-Remaining",
  "X-RateLimit-Reset",
  "RateLimit",
  "RateLimit-Policy",
  "Retry-After",
  "Deprecation",
  "Sunset",
  "Link",
  "Location",
  "WWW-Authenticate",
  "Idempotent-Replayed",
  "X-Request-Id"
]

/**
 * The request headers a preflight allows.
 *
 * @since 1.0.0
 * @category constants
 */
export const allowedHeaders: ReadonlyArray<string> = [
  "Authorization",
  "Content-Type",
  "Idempotency-Key",
  "If-None-Match",
  "X-Request-Id"
]

/**
 * How long a browser may keep a preflight's answer, in seconds.
 *
 * @since 1.0.0
 * @category constants
 */
export const maxAge = 600

/**
 * Adds the CORS headers of a request to its response.
 *
 * @since 1.0.0
 * @category models
 */
export type Cors = (
  request: HttpExchange.Request,
  headers: Record<string, string>,
  allow: ReadonlyArray<string> | undefined
) => void

const exposed = exposedHeaders.join(", ")
const allowed = allowedHeaders.join(", ")

const addVary = (headers: Record<string, string>, name: string): void => {
  const vary = headers["vary"]
  headers["vary"] = vary === undefined ? name : `${vary}, ${name}`
}

/**
 * The CORS of `origins` (`*` for any), or `undefined` when there are none;
 * origins compared as serialized, case-insensitively.
 *
 * @since 1.0.0
 * @category constructors
 */
export const make = (origins: ReadonlyArray<string> | undefined): Cors | undefined => {
  if (origins === undefined || origins.length === 0) return undefined
  const any = origins.includes("*")
  const allowedOrigins = new Set(origins.map((origin) => origin.trim().replace(/\/+$/, "").toLowerCase()))
  return (request, headers, allow) => {
    const origin = HttpExchange.header(request, "origin")
    if (!any) addVary(headers, "Origin")
    if (origin === undefined || (!any && !allowedOrigins.has(origin.toLowerCase()))) return
    headers["access-control-allow-origin"] = any ? "*" : origin
    headers["access-control-expose-headers"] = exposed
    if (allow !== undefined && HttpExchange.header(request, "access-control-request-method") !== undefined) {
      headers["access-control-allow-methods"] = allow.join(", ")
      headers["access-control-allow-headers"] = allowed
      headers["access-control-max-age"] = String(maxAge)
    }
  }
}
