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
import * as HttpExchange from "./HttpExchange.js"
import { docsPath, openApiPath, PetsApi } from "./PetsApi.js"

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
 * `http://localhost:8080/v1` for both, as decisions.md defaults them.
 *
 * @since 1.0.0
 * @category constants
 */
export const defaultServers: Servers = {
  production: "http://localhost:8080/v1",
  staging: "http://localhost:8080/v1"
}

type Json = Record<string, any>

const header = (description: string, schema: Json): Json => ({ description, schema })

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
  "Location": header("The path of the created animal, `/v1/pets/{id}`.", { type: "string" }),
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

const ref = (name: string): Json => ({ $ref: `#/components/headers/${name}` })

const rateLimitHeaders = ["X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset", "RateLimit-Policy", "RateLimit"]

const descriptions: Record<string, string> = {
  "200": "Success.",
  "201": "The created animal.",
  "400": "The request is invalid: body, parameters or JSON (`invalid_request`, with `details` for validation).",
  "401": "The API key is missing or invalid (`unauthorized`).",
  "404": "The animal does not exist (`not_found`).",
  "409": "A request with this `Idempotency-Key` is still being processed (`idempotency_key_in_use`); retry later.",
  "410": "The operation is past its sunset (`gone`).",
  "413": "The body is larger than 65,536 bytes (`payload_too_large`).",
  "415": "The body is not `application/json` (`unsupported_media_type`).",
  "422": "This `Idempotency-Key` was used with another body in the last 24 hours (`idempotency_key_reused`).",
  "429": "Over a rate limit (`rate_limited`) or the key is temporarily banned (`api_key_banned`).",
  "500": "An internal error (`internal_error`); no detail is disclosed.",
  "503": "The store cannot be reached for now (`service_unavailable`); retry after `Retry-After` seconds."
}

const errorContent: Json = { "application/json": { schema: { $ref: "#/components/schemas/Error" } } }

const identifier: Json = { type: "integer", format: "int64", minimum: 1, maximum: Number.MAX_SAFE_INTEGER }
const name: Json = { type: "string", minLength: 1, maxLength: 255, description: "1 to 255 characters, trimmed." }

const responseHeaders = (operation: string, status: string): Json => {
  const names = [...rateLimitHeaders]
  if (status === "429" || status === "503") names.push("Retry-After")
  if (status === "401") names.push("WWW-Authenticate")
  if (operation === "createPet" && status === "201") names.push("Location", "Idempotent-Replayed")
  if (operation === "listPets" && status === "200") names.push("Link")
  const out: Json = Object.fromEntries(names.map((name) => [name, ref(name)]))
  if (operation === "getPet") {
    out["Deprecation"] = ref("Deprecation")
    out["Sunset"] = ref("Sunset")
    out["Link"] = ref("SuccessorLink")
  }
  return out
}

/**
 * Completes the generated document: headers, response descriptions, the
 * `Error` body on every error (the HttpApi's own decode error never reaches a
 * client: core validates), and the id and name formats.
 */
const complete = (spec: Json): Json => {
  for (const methods of Object.values<Json>(spec.paths)) {
    for (const operation of Object.values<Json>(methods)) {
      const operationName = String(operation.operationId).replace(/^pets\./, "")
      for (const parameter of operation.parameters ?? []) {
        // HttpApi declares headers by their lower-case names; the document shows them as written.
        if (parameter.in === "header" && parameter.name === "idempotency-key") parameter.name = "Idempotency-Key"
      }
      for (const [status, response] of Object.entries<Json>(operation.responses)) {
        response.description = descriptions[status] ?? response.description
        if (Number(status) >= 400) response.content = errorContent
        response.headers = responseHeaders(operationName, status)
      }
    }
  }
  const schemas: Json = spec.components.schemas
  for (const unused of ["HttpApiDecodeError", "Issue", "PropertyKey", "NameMaxLength", "Trim"]) delete schemas[unused]
  if (schemas.Pet) Object.assign(schemas.Pet.properties, { id: identifier, categoryId: identifier, name })
  if (schemas.NewPet) Object.assign(schemas.NewPet.properties, { categoryId: identifier, name })
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
const referencePage = (api: ReturnType<typeof annotate>): Effect.Effect<HttpExchange.Response> =>
  Effect.flatMap(Effect.promise(() => import("@effect/platform/HttpApiScalar")), (HttpApiScalar) =>
  Effect.gen(function*() {
    const app = yield* Effect.flatMap(HttpApiBuilder.Router.router, HttpRouter.toHttpApp)
    const response = yield* Effect.provideService(
      app,
      HttpServerRequest.HttpServerRequest,
      HttpServerRequest.fromWeb(new Request(`http://localhost${docsPath}`))
    )
    const web = HttpServerResponse.toWeb(response)
    const body = yield* Effect.promise(() => web.text())
    return { status: web.status, headers: { "content-type": web.headers.get("content-type") ?? "text/html" }, body }
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
 * The two documents as responses, by path: the OpenAPI document with
 * `servers` (built at once) and its reference page (built on first request).
 * Each is built once and served as it is; `undefined` for another path.
 *
 * @since 1.0.0
 * @category constructors
 */
export const responses = (
  servers: Servers = defaultServers
): Effect.Effect<(path: string) => Effect.Effect<HttpExchange.Response> | undefined> => {
  const api = annotate(servers)
  const document = Effect.succeed(HttpExchange.json(OpenApi.fromApi(api)))
  return Effect.map(Effect.cached(referencePage(api)), (page) => (path) =>
    path === openApiPath ? document : path === docsPath ? page : undefined)
}
