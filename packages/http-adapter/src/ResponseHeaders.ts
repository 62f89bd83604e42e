/**
 * The headers every response carries from its `ResponseMeta`: the rate-limit
 * fields and, on a deprecated operation, `Deprecation`, `Sunset` and `Link`.
 *
 * @since 1.0.0
 */
import type { DeprecationPolicy, GuardedPetOperations, PlanRateLimiter } from "@animal-store/core"
import * as HttpExchange from "./HttpExchange.js"
import { basePath } from "./PetsApi.js"

/** Writes the rate-limit fields of a decision at `nowMillis` into `into`. */
const writeRateLimit = (
  into: Record<string, string>,
  decision: PlanRateLimiter.RateLimitDecision,
  nowMillis: number
): Record<string, string> => {
  const { reported, windows } = decision
  into["x-ratelimit-limit"] = String(reported.limit)
  into["x-ratelimit-remaining"] = String(reported.remaining)
  into["x-ratelimit-reset"] = String(reported.reset)
  // While banned, every window resets when the ban ends: `t` is `Retry-After` exactly.
  const banned = decision.outcome === "Banned" ? decision.retryAfter : undefined
  let policy = ""
  let state = ""
  for (let i = 0; i < windows.length; i++) {
    const w = windows[i]!
    const separator = i === 0 ? "" : ", "
    policy += `${separator}"${w.name}";q=${w.limit};w=${w.seconds}`
    state += `${separator}"${w.name}";r=${w.remaining};t=${banned ?? Math.max(0, Math.ceil(w.reset - nowMillis / 1000))}`
  }
  into["ratelimit-policy"] = policy
  into["ratelimit"] = state
  return into
}

/**
 * The rate-limit fields of a decision at `nowMillis` (`X-RateLimit-*`, and the
 * IETF draft's `RateLimit-Policy` and `RateLimit`, one item per window).
 *
 * @since 1.0.0
 * @category conversions
 */
export const rateLimit = (
  decision: PlanRateLimiter.RateLimitDecision,
  nowMillis: number
): Record<string, string> => writeRateLimit({}, decision, nowMillis)

/**
 * The deprecation fields of a response.
 *
 * @since 1.0.0
 * @category models
 */
export interface DeprecationFields {
  readonly deprecation: string
  readonly sunset: string
  readonly link: string
}

const deprecationFields = new WeakMap<
  DeprecationPolicy.Deprecation,
  { readonly linkBase: string; readonly fields: DeprecationFields }
>()

/**
 * The deprecation fields of an operation (`Deprecation` RFC 9745, `Sunset`
 * RFC 8594, `Link` to the successor under `linkBase`), formatted once.
 *
 * @since 1.0.0
 * @category conversions
 */
export const deprecation = (
  value: DeprecationPolicy.Deprecation,
  linkBase: string = basePath
): DeprecationFields => {
  const known = deprecationFields.get(value)
  if (known !== undefined && known.linkBase === linkBase) return known.fields
  const fields = {
    deprecation: `@${Math.floor(value.deprecatedAt.getTime() / 1000)}`,
    sunset: value.sunset.toUTCString(),
    link: `<${linkBase}${value.successor.path}>; rel="successor-version"`
  }
  deprecationFields.set(value, { linkBase, fields })
  return fields
}

/**
 * Adds the headers of `meta` to a response; a `Link` it has is kept beside the new one.
 *
 * @since 1.0.0
 * @category combinators
 */
export const stamp = (
  response: HttpExchange.Response,
  meta: GuardedPetOperations.ResponseMeta,
  nowMillis: number,
  linkBase: string = basePath
): HttpExchange.Response => {
  const headers: Record<string, string> = Object.assign({}, response.headers)
  if (meta.rateLimit !== undefined) writeRateLimit(headers, meta.rateLimit, nowMillis)
  if (meta.deprecation !== undefined) {
    const link = headers["link"]
    Object.assign(headers, deprecation(meta.deprecation, linkBase))
    if (link !== undefined) headers["link"] = `${link}, ${headers["link"]}`
  }
  return { status: response.status, headers, body: response.body }
}
