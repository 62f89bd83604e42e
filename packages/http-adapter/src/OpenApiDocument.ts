/**
 * The OpenAPI 3.1 document served at `GET /v1/openapi.json`, generated from
 * `PetsApi`, and its Scalar reference page at `GET /v1/docs`, which asks no
 * host but the server (record 0030).
 *
 * @since 1.0.0
 */
import * as OpenApi from "@effect/platform/OpenApi"
import { Effect } from "effect"
import * as HttpExchange from "./HttpExchange.js"
import * as OperationDocs from "./internal/operationDocs.js"
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
 * The configured base addresses; one not configured is the address the request was received on.
 *
 * @since 1.0.0
 * @category models
 */
export type ConfiguredServers = Partial<Servers>

/**
 * `http://localhost:8080/v1` for both: the servers when no listening address is known.
 *
 * @since 1.0.0
 * @category constants
 */
export const defaultServers: Servers = {
  production: "http://localhost:8080/v1",
  staging: "http://localhost:8080/v1"
}

/**
 * The servers of the document: the configured ones, the others at `localOrigin` (else `defaultServers`).
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

/** The text of an animal's `name` in both schemas (core's filters have no JSON Schema of their own). */
const name: Json = { type: "string", minLength: 1, maxLength: 255, description: "1 to 255 characters, trimmed." }

/**
 * Completes the document once each operation has documented itself: header and
 * bearer components, `name`'s length rules, `Error.status`, unused schemas removed.
 */
const completeDocument = (spec: Json): Json => {
  const schemas: Json = spec.components.schemas
  for (const unused of ["HttpApiDecodeError", "Issue", "PropertyKey", "NameMaxLength", "Trim", "Int"]) {
    delete schemas[unused]
  }
  Object.assign(schemas.Pet.properties, { name })
  Object.assign(schemas.NewPet.properties, { name })
  schemas.Error.properties.status = { type: "integer", description: "The HTTP status code." }
  spec.components.headers = OperationDocs.headers
  spec.components.securitySchemes = OperationDocs.securitySchemes
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
    ]).annotate(OpenApi.Transform, completeDocument)

/**
 * The OpenAPI document of the interface with `servers`.
 *
 * @since 1.0.0
 * @category constructors
 */
export const make = (servers: Servers = defaultServers): OpenApi.OpenAPISpec => OpenApi.fromApi(annotate(servers))

/** No web fonts, so that the page asks nothing of any host but the server. */
const scalar = { withDefaultFonts: false } as const

/** The reference page as `HttpApiScalar` serves it; its 3 MB of modules are loaded on first use. */
const referencePage = (api: ReturnType<typeof annotate>): Effect.Effect<string> =>
  Effect.promise(async () => {
    const [HttpApiScalar, HttpLayerRouter] = await Promise.all([
      import("@effect/platform/HttpApiScalar"),
      import("@effect/platform/HttpLayerRouter")
    ])
    const { dispose, handler } = HttpLayerRouter.toWebHandler(
      HttpApiScalar.layerHttpLayerRouter({ api, path: docsPath, scalar }),
      { disableLogger: true }
    )
    try {
      const response = await handler(new Request(`http://localhost${docsPath}`))
      return await response.text()
    } finally {
      await dispose()
    }
  })

/**
 * `Cache-Control` of both documents; the `ETag` revalidates them.
 *
 * @since 1.0.0
 * @category constants
 */
export const cacheControl = "public, max-age=600"

/** Documents kept per local origin (a host may be reached under a few addresses). */
const maxOrigins = 8

/**
 * The two documents as responses, by path (`undefined` for another path):
 * each prepared once per address, compressed with its `ETag`.
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
