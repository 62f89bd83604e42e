/**
 * The HTTP+JSON interface as an `HttpApi` app, for Effect hosts (a `Layer`
 * served by any `HttpServer`) and for every other host (a web-standard
 * handler `(Request) => Promise<Response>`: Node http, Hono, Bun, Deno).
 * Both need the core services `GuardedPetOperations` and `PetOperations`.
 *
 * @since 1.0.0
 */
import type { GuardedPetOperations, PetOperations } from "@animal-store/core"
import * as HttpApi from "@effect/platform/HttpApi"
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpApiScalar from "@effect/platform/HttpApiScalar"
import * as HttpMiddleware from "@effect/platform/HttpMiddleware"
import * as HttpServer from "@effect/platform/HttpServer"
import * as OpenApi from "@effect/platform/OpenApi"
import { Context, Effect, Layer } from "effect"
import * as AccessMiddleware from "./AccessMiddleware.js"
import * as ClientAddress from "./ClientAddress.js"
import * as ErrorResponse from "./ErrorResponse.js"
import { contentType, jsonResponse } from "./internal/json.js"
import * as OpenApiDocument from "./OpenApiDocument.js"
import { docsPath, openApiPath } from "./PetsApi.js"
import * as PetsHandlers from "./PetsHandlers.js"

/**
 * @since 1.0.0
 * @category models
 */
export interface Options {
  /** The base addresses in the OpenAPI document. Default `http://localhost:8080/v1` for both. */
  readonly servers?: OpenApiDocument.Servers | undefined
  /** Peer addresses whose `X-Forwarded-For` is believed. Default none. */
  readonly trustedProxies?: ReadonlyArray<string> | undefined
  /** One access-log line per request. Default `true`. */
  readonly accessLog?: boolean | undefined
}

/**
 * The services the app needs: core's guarded and trusted operations.
 *
 * @since 1.0.0
 * @category models
 */
export type Requirements = GuardedPetOperations.GuardedPetOperations | PetOperations.PetOperations

const layerDocument = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function*() {
    const { api } = yield* HttpApi.Api
    const document = jsonResponse(OpenApi.fromApi(api))
    yield* router.get(openApiPath, Effect.succeed(document))
  })
)

/**
 * The API with its handlers, the OpenAPI document (`GET /v1/openapi.json`),
 * its reference page (`GET /v1/docs`, Scalar) and `AccessMiddleware`.
 *
 * @since 1.0.0
 * @category layers
 */
export const layerApi = (options?: Options): Layer.Layer<HttpApi.Api, never, Requirements> =>
  Layer.mergeAll(
    layerDocument,
    HttpApiScalar.layer({ path: docsPath }),
    HttpApiBuilder.middleware(
      Effect.flatMap(PetsHandlers.router, (operations) =>
        AccessMiddleware.make({
          trustedProxies: options?.trustedProxies ?? [],
          accessLog: options?.accessLog ?? true,
          operations
        }))
    )
  ).pipe(
    Layer.provideMerge(
      HttpApiBuilder.api(OpenApiDocument.annotate(options?.servers)).pipe(Layer.provide(PetsHandlers.layer))
    )
  )

/**
 * The API served by the `HttpServer` of the context.
 *
 * @since 1.0.0
 * @category layers
 */
export const layer = (options?: Options) =>
  HttpApiBuilder.serve().pipe(HttpMiddleware.withTracerDisabledWhen(() => true), Layer.provide(layerApi(options)))

/**
 * Who sent a request to the web handler: the peer address of its connection.
 *
 * @since 1.0.0
 * @category models
 */
export interface Client {
  readonly remoteAddress?: string | undefined
}

/**
 * A web-standard handler and the disposal of its services.
 *
 * @since 1.0.0
 * @category models
 */
export interface WebHandler {
  /**
   * Answers a request. Pass the peer address of the connection so that
   * requests without a valid key are limited per client; without it they
   * share one limit.
   */
  readonly handler: (request: Request, client?: Client) => Promise<Response>
  /** Closes the services (the store). */
  readonly dispose: () => Promise<void>
}

const unavailable = () =>
  new Response(JSON.stringify(ErrorResponse.internalErrorBody), { status: 500, headers: { "content-type": contentType } })

/**
 * The API as a web-standard handler on `services`, built on the first
 * request. If the services cannot be built, every request is answered 500.
 *
 * @since 1.0.0
 * @category constructors
 */
export const toWebHandler = <E>(
  services: Layer.Layer<Requirements, E>,
  options?: Options & { readonly memoMap?: Layer.MemoMap | undefined }
): WebHandler => {
  const web = HttpApiBuilder.toWebHandler(
    Layer.mergeAll(layerApi(options).pipe(Layer.provide(services)), HttpServer.layerContext),
    options?.memoMap === undefined ? undefined : { memoMap: options.memoMap }
  )
  return {
    handler: (request, client) =>
      web.handler(
        request,
        client?.remoteAddress === undefined
          ? undefined
          : Context.make(ClientAddress.RemoteAddress, client.remoteAddress)
      ).catch(unavailable),
    dispose: web.dispose
  }
}
