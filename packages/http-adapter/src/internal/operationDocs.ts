/**
 * What the OpenAPI document cannot say from the schemas alone, declared beside
 * each endpoint of `PetsApi`: response headers, descriptions, the `Error` body, bearer security.
 *
 * @internal
 */
import { statusByCode } from "../ProtocolError.js"

type Json = Record<string, any>

/** A header as the document's `components.headers` describes it. */
const header = (description: string, type: "integer" | "string", extra?: Json): Json => ({
  description,
  schema: { type, ...extra }
})

/** Every header a response may carry, by component name (`SuccessorLink`: a deprecated operation's `Link`). */
export const headers = {
  "X-RateLimit-Limit": header(
    "The request limit of the window with the fewest remaining requests (on a tie, the one that resets later).",
    "integer"
  ),
  "X-RateLimit-Remaining": header("Requests remaining in that window, counting this one.", "integer"),
  "X-RateLimit-Reset": header("Unix timestamp (seconds) at which that window resets.", "integer"),
  "RateLimit-Policy": header(
    "Every window in force (IETF RateLimit fields draft), e.g. `\"minute\";q=60;w=60, \"day\";q=1000;w=86400`.",
    "string"
  ),
  "RateLimit": header(
    "Remaining requests and seconds until reset of every window, e.g. `\"minute\";r=59;t=42, \"day\";r=999;t=3600`.",
    "string"
  ),
  "Retry-After": header("Seconds to wait before retrying.", "integer"),
  "WWW-Authenticate": header(
    "`Bearer realm=\"animal-store\"`, with `error=\"invalid_token\"` when a key was sent.",
    "string"
  ),
  "Location": header("The path of the created animal under the base address's path, `/v1/pets/{id}`.", "string"),
  "Idempotent-Replayed": header(
    "`true` when the response replays the first response to a request with the same `Idempotency-Key`; absent otherwise.",
    "string",
    { enum: ["true"] }
  ),
  "Link": header("`<...>; rel=\"next\"`: the next page of the listing, when there is one.", "string"),
  "Deprecation": header("RFC 9745: when the operation was deprecated, `@<unix seconds>`.", "string"),
  "Sunset": header("RFC 8594: when the operation is removed, `Thu, 05 Dec 2030 00:00:00 GMT`.", "string"),
  "SuccessorLink": header("`</v1/pets>; rel=\"successor-version\"`: the replacement of the operation.", "string")
} as const

/** The name of a header's component. */
export type HeaderName = keyof typeof headers

/** A header of a response: its component, whether it is always there, the name it is sent under. */
export interface ResponseHeader {
  readonly header: HeaderName
  readonly required: boolean
  readonly as?: string | undefined
}

/** A header every such response carries. */
export const always = (header: HeaderName, as?: string): ResponseHeader => ({ header, required: true, as })

/** A header some such responses carry. */
export const sometimes = (header: HeaderName): ResponseHeader => ({ header, required: false })

/** The description of each status of the interface. */
const descriptions: Readonly<Record<number, string>> = {
  200: "Success.",
  201: "The created animal.",
  [statusByCode.invalid_request]:
    "The request is invalid: body, parameters or JSON (`invalid_request`, with `details` for validation).",
  [statusByCode.unauthorized]: "The API key is missing or invalid (`unauthorized`).",
  [statusByCode.not_found]: "The animal does not exist (`not_found`).",
  [statusByCode.idempotency_key_in_use]:
    "A request with this `Idempotency-Key` is still being processed (`idempotency_key_in_use`); retry later.",
  [statusByCode.gone]: "The operation is past its sunset (`gone`).",
  [statusByCode.payload_too_large]: "The body is larger than 65,536 bytes (`payload_too_large`).",
  [statusByCode.unsupported_media_type]: "The body is not `application/json` (`unsupported_media_type`).",
  [statusByCode.idempotency_key_reused]:
    "This `Idempotency-Key` was used with another body in the last 24 hours (`idempotency_key_reused`).",
  [statusByCode.rate_limited]: "Over a rate limit (`rate_limited`) or the key is temporarily banned (`api_key_banned`).",
  [statusByCode.internal_error]: "An internal error (`internal_error`); no detail is disclosed.",
  [statusByCode.service_unavailable]:
    "The store cannot be reached for now (`service_unavailable`); retry after `Retry-After` seconds."
}

/** The headers of every response of every operation, and of some statuses. */
const everyResponse: ReadonlyArray<ResponseHeader> = [
  always("X-RateLimit-Limit"),
  always("X-RateLimit-Remaining"),
  always("X-RateLimit-Reset"),
  always("RateLimit-Policy"),
  always("RateLimit")
]
const byStatus: Readonly<Record<number, ReadonlyArray<ResponseHeader>>> = {
  [statusByCode.rate_limited]: [always("Retry-After")],
  [statusByCode.service_unavailable]: [always("Retry-After")],
  [statusByCode.unauthorized]: [always("WWW-Authenticate")]
}

const errorContent: Json = { "application/json": { schema: { $ref: "#/components/schemas/Error" } } }

/** The name of the bearer scheme in `components.securitySchemes`. */
export const bearerScheme = "bearer"

/** The security scheme of every operation. */
export const securitySchemes: Json = {
  [bearerScheme]: {
    type: "http",
    scheme: "bearer",
    description:
      "An API key (`ask_live_...` in production, `ask_test_...` in staging) sent as `Authorization: Bearer <key>`."
  }
}

/**
 * The headers an operation adds on success or on every response, and the
 * request headers it reads (by lower-case name, with the name the document shows).
 */
export interface OperationOptions {
  readonly success?: ReadonlyArray<ResponseHeader>
  readonly every?: ReadonlyArray<ResponseHeader>
  readonly requestHeaders?: Readonly<Record<string, string>>
}

const headerObjects = (list: ReadonlyArray<ResponseHeader>, into: Json): void => {
  for (const { as, header, required } of list) {
    into[as ?? header] = required ? { ...headers[header], required: true } : headers[header]
  }
}

/**
 * An `OpenApi.Transform` of one operation: bearer security, and on each
 * response its description, its headers inline and, on errors, the `Error` body.
 */
export const operation = (options: OperationOptions = {}) => (op: Json): Json => {
  for (const parameter of op.parameters ?? []) {
    const shown = parameter.in === "header" ? options.requestHeaders?.[parameter.name] : undefined
    if (shown !== undefined) parameter.name = shown
  }
  op.security = [{ [bearerScheme]: [] }]
  for (const [code, response] of Object.entries<Json>(op.responses)) {
    const status = Number(code)
    const out: Json = {}
    headerObjects(everyResponse, out)
    headerObjects(byStatus[status] ?? [], out)
    if (status < 400) headerObjects(options.success ?? [], out)
    headerObjects(options.every ?? [], out)
    response.description = descriptions[status] ?? response.description
    if (status >= 400) response.content = errorContent
    response.headers = out
  }
  return op
}
