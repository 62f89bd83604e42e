/**
 * The OpenAPI 3.1 document served at `GET /v1/openapi.json`, generated from
 * `PetsApi`: version 1.0.0, the production and staging base addresses as
 * servers, the bearer scheme, `getPet` deprecated, and the headers of
 * decisions.md (rate limits on every response, `Retry-After` on 429,
 * `WWW-Authenticate` on 401, `Location` and `Idempotent-Replayed` on 201, `Link`
 * for the next page, the `Idempotency-Key` parameter of `createPet`, and
 * `Deprecation`/`Sunset`/`Link` on `getPet`); and its reference page at
 * `GET /v1/docs` (Scalar, inlined, as @effect/platform's `HttpApiScalar`
 * renders it).
 *
 * @since 1.0.0
 */
import * as HttpApi from "@effect/platform/HttpApi"
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpRouter from "@effect/platform/HttpRouter"
import * as HttpServer from "@effect/platform/HttpServer"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as OpenApi from "@effect/platform/OpenApi"
import { Context, Effect, Layer } from "effect"
import { ApiError } from "@animal-store/core"
import * as HttpExchange from "./HttpExchange.js"
import * as Representation from "./internal/representation.js"
import { basePath, docsPath, openApiPath, PetsApi } from "./PetsApi.js"

/**
 * The base addresses of the two environments, each ending in `/v1`.
 *
 * @since 1.0.0
 * @category models
 */
export interface Servers {
  readonly production: string
  readonly staging: string
}

/**
 * The configured base addresses; one that is not configured is the address
 * the request was received on (`http://<host>:<port>/v1`).
 *
 * @since 1.0.0
 * @category models
 */
export type ConfiguredServers = Partial<Servers>

/**
 * `http://localhost:8080/v1` for both: the servers of a document made
 * without any (`make()`), when no listening address is known.
 *
 * @since 1.0.0
 * @category constants
 */
export const defaultServers: Servers = {
  production: "http://localhost:8080/v1",
  staging: "http://localhost:8080/v1"
}

/**
 * The servers of the document: the configured ones, the others at
 * `localOrigin` (else `defaultServers`).
 *
 * @since 1.0.0
 * @category constructors
 */
export const resolveServers = (configured: ConfiguredServers | undefined, localOrigin: string | undefined): Servers => {
  const local = localOrigin === undefined ? undefined : `${localOrigin}${basePath}`
  return {
    production: configured?.production ?? local ?? defaultServers.production,
    staging: configured?.staging ?? local ?? defaultServers.staging
  }
}

type Json = Record<string, any>

const header = (description: string, schema: Json): Json => ({ description, schema })

/** The same header, required on the responses that always carry it. */
const required = (name: string): Json => ({ ...headers[name], required: true })

const headers: Json = {
  "X-RateLimit-Limit": header(
    "The request limit of the window with the fewest remaining requests (on a tie, the one that resets later).",
    { type: "integer" }
  ),
  "X-RateLimit-Remaining": header("Requests remaining in that window, counting this one.", { type: "integer" }),
  "X-RateLimit-Reset": header("Unix timestamp (seconds) at which that window resets.", { type: "integer" }),
  "RateLimit-Policy": header(
    "Every window in force (IETF RateLimit fields draft), e.g. `\"minute\";q=60;w=60, \"day\";q=1000;w=86400`.",
    { type: "string" }
  ),
  "RateLimit": header(
    "Remaining requests and seconds until reset of every window, e.g. `\"minute\";r=59;t=42, \"day\";r=999;t=3600`.",
    { type: "string" }
  ),
  "Retry-After": header("Seconds to wait before retrying.", { type: "integer" }),
  "WWW-Authenticate": header("`Bearer realm=\"animal-store\"`, with `error=\"invalid_token\"` when a key was sent.", {
    type: "string"
  }),
  "Location": header("The path of the created animal under the base address's path, `/v1/pets/{id}`.", {
    type: "string"
  }),
  "Idempotent-Replayed": header(
    "`true` when the response replays the first response to a request with the same `Idempotency-Key`; absent otherwise.",
    { type: "string", enum: ["true"] }
  ),
  "Link": header("`<...>; rel=\"next\"`: the next page of the listing, when there is one.", { type: "string" }),
  "Deprecation": header("RFC 9745: when the operation was deprecated, `@<unix seconds>`.", { type: "string" }),
  "Sunset": header("RFC 8594: when the operation is removed, `Thu, 05 Dec 2030 00:00:00 GMT`.", { type: "string" }),
  "SuccessorLink": header("`</v1/pets>; rel=\"successor-version\"`: the replacement of the operation.", {
    type: "string"
  })
}

const rateLimitHeaders = ["X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset", "RateLimit-Policy", "RateLimit"]

const { statusByCode } = ApiError

const descriptions: Record<number, string> = {
  200: "Success.",
  201: "The created animal.",
  [statusByCode.invalid_request]: "The request is invalid: body, parameters or JSON (`invalid_request`, with `details` for validation).",
  [statusByCode.unauthorized]: "The API key is missing or invalid (`unauthorized`).",
  [statusByCode.not_found]: "The animal does not exist (`not_found`).",
  [statusByCode.idempotency_key_in_use]: "A request with this `Idempotency-Key` is still being processed (`idempotency_key_in_use`); retry later.",
  [statusByCode.gone]: "The operation is past its sunset (`gone`).",
  [statusByCode.payload_too_large]: "The body is larger than 65,536 bytes (`payload_too_large`).",
  [statusByCode.unsupported_media_type]: "The body is not `application/json` (`unsupported_media_type`).",
  [statusByCode.idempotency_key_reused]: "This `Idempotency-Key` was used with another body in the last 24 hours (`idempotency_key_reused`).",
  [statusByCode.rate_limited]: "Over a rate limit (`rate_limited`) or the key is temporarily banned (`api_key_banned`).",
  [statusByCode.internal_error]: "An internal error (`internal_error`); no detail is disclosed.",
  [statusByCode.service_unavailable]: "The store cannot be reached for now (`service_unavailable`); retry after `Retry-After` seconds."
}

const errorContent: Json = { "application/json": { schema: { $ref: "#/components/schemas/Error" } } }

const name: Json = { type: "string", minLength: 1, maxLength: 255, description: "1 to 255 characters, trimmed." }

/**
 * The headers of a response, inline (some code generators do not follow
 * `$ref`s of headers), required when always sent.
 */
const responseHeaders = (operation: string, status: number): Json => {
  const out: Json = {}
  for (const name of rateLimitHeaders) out[name] = required(name)
  if (status === statusByCode.rate_limited || status === statusByCode.service_unavailable) {
    out["Retry-After"] = required("Retry-After")
  }
  if (status === statusByCode.unauthorized) out["WWW-Authenticate"] = required("WWW-Authenticate")
  if (operation === "createPet" && status === 201) {
    out["Location"] = required("Location")
    out["Idempotent-Replayed"] = headers["Idempotent-Replayed"]
  }
  if (operation === "listPets" && status === 200) out["Link"] = headers["Link"]
  if (operation === "getPet") {
    out["Deprecation"] = required("Deprecation")
    out["Sunset"] = required("Sunset")
    out["Link"] = required("SuccessorLink")
  }
  return out
}

/**
 * Completes the generated document: headers, response descriptions, the
 * `Error` body on every error (the HttpApi's own decode error never reaches a
 * client: core validates), and the name's length.
 */
const complete = (spec: Json): Json => {
  for (const methods of Object.values<Json>(spec.paths)) {
    for (const operation of Object.values<Json>(methods)) {
      const operationName = String(operation.operationId)
      for (const parameter of operation.parameters ?? []) {
        // HttpApi declares headers by their lower-case names; the document shows them as written.
        if (parameter.in === "header" && parameter.name === "idempotency-key") parameter.name = "Idempotency-Key"
      }
      for (const [code, response] of Object.entries<Json>(operation.responses)) {
        const status = Number(code)
        response.description = descriptions[status] ?? response.description
        if (status >= 400) response.content = errorContent
        response.headers = responseHeaders(operationName, status)
      }
    }
  }
  const schemas: Json = spec.components.schemas
  for (const unused of ["HttpApiDecodeError", "Issue", "PropertyKey", "NameMaxLength", "Trim"]) delete schemas[unused]
  if (schemas.Pet) Object.assign(schemas.Pet.properties, { name })
  if (schemas.NewPet) Object.assign(schemas.NewPet.properties, { name })
  if (schemas.Error) schemas.Error.properties.status = { type: "integer", description: "The HTTP status code." }
  delete schemas.Int
  spec.components.headers = headers
  return spec
}

/**
 * `PetsApi` annotated with the servers of the document.
 *
 * @since 1.0.0
 * @category constructors
 */
export const annotate = (servers: Servers = defaultServers) =>
  PetsApi.annotate(OpenApi.Servers, [
    { url: servers.production, description: "Production" },
    { url: servers.staging, description: "Staging" }
  ]).annotate(OpenApi.Transform, complete)

/**
 * The OpenAPI document of the interface with `servers`.
 *
 * @since 1.0.0
 * @category constructors
 */
export const make = (servers: Servers = defaultServers): OpenApi.OpenAPISpec => OpenApi.fromApi(annotate(servers))

/**
 * The reference page, rendered by `HttpApiScalar` on its own router. The
 * module (3 MB of inlined script) is loaded on first use, not at start.
 */
const referencePage = (api: ReturnType<typeof annotate>): Effect.Effect<string> =>
  Effect.flatMap(Effect.promise(() => import("@effect/platform/HttpApiScalar")), (HttpApiScalar) =>
  Effect.gen(function*() {
    const app = yield* Effect.flatMap(HttpApiBuilder.Router.router, HttpRouter.toHttpApp)
    const response = yield* Effect.provideService(
      app,
      HttpServerRequest.HttpServerRequest,
      HttpServerRequest.fromWeb(new Request(`http://localhost${docsPath}`))
    )
    const web = HttpServerResponse.toWeb(response)
    return yield* Effect.promise(() => web.text())
  }).pipe(
    Effect.orDie,
    Effect.provide(
      Layer.mergeAll(HttpApiScalar.layer({ path: docsPath }), HttpApiBuilder.Router.Live, HttpServer.layerContext).pipe(
        // as `HttpApiBuilder.api` does: the service holds any api
        Layer.provide(Layer.succeed(HttpApi.Api, {
          api: api as unknown as Context.Tag.Service<typeof HttpApi.Api>["api"],
          context: Context.empty()
        }))
      )
    )
  ))

/**
 * `Cache-Control` of both documents: they change only with the server's
 * configuration, and the `ETag` revalidates them after that.
 *
 * @since 1.0.0
 * @category constants
 */
export const cacheControl = "public, max-age=600"

/** Documents kept per local origin (a host may be reached under a few addresses). */
const maxOrigins = 8

/**
 * The two documents as responses, by path: the OpenAPI document with the
 * configured servers (the others at the address the request was received
 * on), and its reference page (rendered on its first request). Each is
 * prepared once per address (compressed, with its `ETag`) and answered as the
 * request accepts it (`Accept-Encoding`, `If-None-Match`); `undefined` for
 * another path.
 *
 * @since 1.0.0
 * @category constructors
 */
export const responses = (
  configured?: ConfiguredServers
): Effect.Effect<
  (path: string, request: HttpExchange.Request) => Effect.Effect<HttpExchange.Response> | undefined
> =>
  Effect.sync(() => {
    interface Prepared {
      readonly document: Representation.Representation
      readonly page: Effect.Effect<Representation.Representation>
    }
    const prepare = (servers: Servers): Effect.Effect<Prepared> => {
      const api = annotate(servers)
      const document = Representation.make(
        JSON.stringify(OpenApi.fromApi(api)),
        HttpExchange.jsonContentType,
        cacheControl
      )
      return Effect.map(
        Effect.cached(Effect.map(referencePage(api), (html) => Representation.make(html, "text/html; charset=utf-8", cacheControl))),
        (page) => ({ document, page })
      )
    }
    const byOrigin = new Map<string, Prepared>()
    const preparedFor = (request: HttpExchange.Request): Effect.Effect<Prepared> => {
      const fullyConfigured = configured?.production !== undefined && configured.staging !== undefined
      const origin = fullyConfigured ? "" : request.localOrigin?.() ?? ""
      const known = byOrigin.get(origin)
      if (known !== undefined) return Effect.succeed(known)
      return Effect.tap(
        prepare(resolveServers(configured, origin === "" ? undefined : origin)),
        (prepared) => Effect.sync(() => {
          if (byOrigin.size < maxOrigins) byOrigin.set(origin, prepared)
        })
      )
    }
    return (path, request) =>
      path === openApiPath
        ? Effect.map(preparedFor(request), ({ document }) => Representation.respond(document, request))
        : path === docsPath
        ? Effect.flatMap(preparedFor(request), ({ page }) => Effect.map(page, (page) => Representation.respond(page, request)))
        : undefined
  })
