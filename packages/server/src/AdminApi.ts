/**
 * The admin API of the operations listener, under `/admin/v1` (record 0026):
 * issue, list, show, revoke, rotate and unban keys behind a bearer token, on
 * core's `KeyAdministration`; every action logged, never with a secret.
 *
 * @since 1.0.0
 */
import type { StoreError } from "@animal-store/core"
import { ApiError, ApiKey, KeyAdministration, Plan } from "@animal-store/core"
import { ProtocolError } from "@animal-store/http-adapter"
import type * as HttpApp from "@effect/platform/HttpApp"
import * as HttpApi from "@effect/platform/HttpApi"
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiError from "@effect/platform/HttpApiError"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as HttpApiMiddleware from "@effect/platform/HttpApiMiddleware"
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import * as HttpApiSecurity from "@effect/platform/HttpApiSecurity"
import * as HttpServerError from "@effect/platform/HttpServerError"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as OpenApi from "@effect/platform/OpenApi"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import type { Scope } from "effect"
import { Cause, Duration, Effect, Layer, Redacted, Schema } from "effect"
import * as AdminToken from "./internal/adminToken.js"
import * as KeyView from "./internal/keyView.js"

const body = <const Code extends ApiError.ErrorCode>(code: Code) => ({
  code: Schema.Literal(code),
  message: Schema.String,
  status: Schema.Literal(ProtocolError.statusByCode[code]),
  details: Schema.optional(Schema.Array(ApiError.ErrorDetail))
})

/**
 * 401: no bearer token, or not the admin token.
 *
 * @since 1.0.0
 * @category errors
 */
export class AdminUnauthorized extends Schema.Class<AdminUnauthorized>("AdminUnauthorized")(
  body("unauthorized"),
  HttpApiSchema.annotations({ status: 401 })
) {}

/**
 * 400: a body that is not a valid request.
 *
 * @since 1.0.0
 * @category errors
 */
export class AdminInvalidRequest extends Schema.Class<AdminInvalidRequest>("AdminInvalidRequest")(
  body("invalid_request"),
  HttpApiSchema.annotations({ status: 400 })
) {}

/**
 * 404: no key with the id, or no such route.
 *
 * @since 1.0.0
 * @category errors
 */
export class AdminNotFound extends Schema.Class<AdminNotFound>("AdminNotFound")(
  body("not_found"),
  HttpApiSchema.annotations({ status: 404 })
) {}

/**
 * 503: the store cannot be reached now.
 *
 * @since 1.0.0
 * @category errors
 */
export class AdminServiceUnavailable extends Schema.Class<AdminServiceUnavailable>("AdminServiceUnavailable")(
  body("service_unavailable"),
  HttpApiSchema.annotations({ status: 503 })
) {}

/**
 * 500: the store failed otherwise.
 *
 * @since 1.0.0
 * @category errors
 */
export class AdminInternalError extends Schema.Class<AdminInternalError>("AdminInternalError")(
  body("internal_error"),
  HttpApiSchema.annotations({ status: 500 })
) {}

/**
 * A key as the admin API (and `keys ... --json`) shows it.
 *
 * @since 1.0.0
 * @category schemas
 */
export const Key = KeyView.KeyView

/**
 * @since 1.0.0
 * @category schemas
 */
export const KeyList = KeyView.KeyList

/**
 * A new key and its secret, shown this once.
 *
 * @since 1.0.0
 * @category schemas
 */
export const IssuedKey = KeyView.IssuedKeyView

/** An RFC 3339 instant with its offset (`Z` or `+hh:mm`). */
const Rfc3339 = Schema.String.pipe(
  Schema.pattern(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/i),
  Schema.filter((text) => !Number.isNaN(Date.parse(text)) || "a valid instant")
).annotations({ jsonSchema: { format: "date-time" }, description: "An RFC 3339 instant, such as 2030-01-01T00:00:00Z" })

/**
 * The body of `POST /keys`: a plan, limits for (and only for) `enterprise`, and
 * optionally the environment, the expiry and the minute window.
 *
 * @since 1.0.0
 * @category schemas
 */
export const IssueKeyRequest = Schema.Struct({
  plan: Plan.Plan,
  limits: Schema.optional(Plan.PlanLimits),
  environment: Schema.optional(ApiKey.Environment),
  expiresAt: Schema.optional(Rfc3339.annotations({ description: "When the key stops working: a later instant than now" })),
  window: Schema.optional(ApiKey.MinuteWindow.annotations({
    description: "How the minute limit is counted: the UTC minute (fixed, the default), or with the previous " +
      "minute weighted by its share of the last 60 seconds (sliding)"
  }))
}).annotations({ identifier: "IssueKeyRequest" })

/**
 * The query of `POST /keys/{id}/rotate`: the previous secret's grace in seconds (default 86400).
 *
 * @since 1.0.0
 * @category schemas
 */
export const RotateKeyParams = Schema.Struct({
  graceSeconds: Schema.optional(
    Schema.NumberFromString.pipe(Schema.int(), Schema.between(0, 315_360_000)).annotations({
      description: "Seconds the previous secret keeps working (default 86400; 0 ends it at once)"
    })
  )
})

/**
 * The bearer token of the admin API.
 *
 * @since 1.0.0
 * @category security
 */
export class AdminAuth extends HttpApiMiddleware.Tag<AdminAuth>()("AdminAuth", {
  failure: AdminUnauthorized,
  security: { bearer: HttpApiSecurity.bearer }
}) {}

const id = HttpApiSchema.param("id", Schema.String)

/**
 * @since 1.0.0
 * @category api
 */
export class KeysGroup extends HttpApiGroup.make("keys")
  .add(
    HttpApiEndpoint.post("issueKey", "/keys")
      .setPayload(IssueKeyRequest)
      .addSuccess(IssuedKey, { status: 201 })
      .addError(AdminInvalidRequest)
  )
  .add(HttpApiEndpoint.get("listKeys", "/keys").addSuccess(KeyList))
  .add(HttpApiEndpoint.get("getKey")`/keys/${id}`.addSuccess(Key).addError(AdminNotFound))
  .add(HttpApiEndpoint.del("revokeKey")`/keys/${id}`.addSuccess(Key).addError(AdminNotFound))
  .add(
    HttpApiEndpoint.post("rotateKey")`/keys/${id}/rotate`
      .setUrlParams(RotateKeyParams)
      .addSuccess(IssuedKey)
      .addError(AdminNotFound)
      .addError(AdminInvalidRequest)
      .annotate(
        OpenApi.Description,
        "Issues a new secret for the key (same id, plan, limits, counts and ban), shown this once; the previous " +
          "secret keeps working for graceSeconds. A revoked key is a 400."
      )
  )
  .add(HttpApiEndpoint.post("unbanKey")`/keys/${id}/unban`.addSuccess(Key).addError(AdminNotFound))
  .addError(AdminServiceUnavailable)
  .addError(AdminInternalError)
  .middleware(AdminAuth)
{}

/**
 * The admin API's definition, its paths under `/admin/v1`.
 *
 * @since 1.0.0
 * @category api
 */
export class Api extends HttpApi.make("animal-store-admin")
  .add(KeysGroup)
  .addError(AdminInvalidRequest)
  .addError(AdminNotFound)
  .prefix("/admin/v1")
  .annotateContext(OpenApi.annotations({
    title: "Animal Store admin API",
    version: "1.0.0",
    description: "Keys as an operator manages them. Every operation needs `Authorization: Bearer <ANIMAL_STORE_ADMIN_TOKEN>`."
  }))
{}

/**
 * The path of the admin API's OpenAPI document.
 *
 * @since 1.0.0
 * @category constants
 */
export const openApiPath = "/admin/v1/openapi.json" as const

const storeFailure = (error: StoreError.StoreError) => {
  const { message } = ApiError.describe(error)
  return Effect.zipRight(
    Effect.logError("admin: the store failed").pipe(Effect.annotateLogs({ reason: error.reason, error: error.message })),
    Effect.fail(
      error.reason === "Unavailable"
        ? new AdminServiceUnavailable({ code: "service_unavailable", message, status: 503 })
        : new AdminInternalError({ code: "internal_error", message, status: 500 })
    )
  )
}

const notFound = (error: KeyAdministration.ApiKeyNotFound) =>
  Effect.fail(new AdminNotFound({ code: "not_found", message: `No key with id ${JSON.stringify(error.id)}`, status: 404 }))

/** Logs an action at info with its annotations (never a secret). */
const logged = (action: string, status: KeyAdministration.KeyStatus, annotations: Record<string, unknown> = {}) =>
  Effect.logInfo(`admin: ${action}`).pipe(
    Effect.annotateLogs({ "admin.action": action, "key.id": status.key.id, ...annotations })
  )

const keysLive = HttpApiBuilder.group(Api, "keys", (handlers) =>
  Effect.map(KeyAdministration.KeyAdministration, (admin) =>
    handlers
      .handle("issueKey", ({ payload }) =>
        admin.issue({ ...payload, expiresAt: payload.expiresAt === undefined ? undefined : new Date(payload.expiresAt) }).pipe(
          Effect.tap(({ key, status }) =>
            logged("issueKey", status, { plan: key.plan, environment: key.environment, window: key.window })
          ),
          Effect.map(({ secret, status }) => ({ key: KeyView.viewOf(status), secret: Redacted.value(secret) })),
          Effect.catchTags({
            InvalidRequest: (error) =>
              Effect.fail(new AdminInvalidRequest({ ...ApiError.describe(error), code: "invalid_request", status: 400 })),
            StoreError: storeFailure
          })
        ))
      .handle("listKeys", () =>
        admin.list.pipe(
          Effect.tap((statuses) => Effect.logInfo("admin: listKeys").pipe(Effect.annotateLogs({ "admin.action": "listKeys", keys: statuses.length }))),
          Effect.map((statuses) => ({ keys: statuses.map(KeyView.viewOf) })),
          Effect.catchTag("StoreError", storeFailure)
        ))
      .handle("getKey", ({ path }) =>
        admin.show(path.id).pipe(
          Effect.tap((status) => logged("getKey", status)),
          Effect.map(KeyView.viewOf),
          Effect.catchTags({ ApiKeyNotFound: notFound, StoreError: storeFailure })
        ))
      .handle("revokeKey", ({ path }) =>
        admin.revoke(path.id).pipe(
          Effect.tap((status) => logged("revokeKey", status)),
          Effect.map(KeyView.viewOf),
          Effect.catchTags({ ApiKeyNotFound: notFound, StoreError: storeFailure })
        ))
      .handle("rotateKey", ({ path, urlParams }) =>
        admin.rotate(path.id, Duration.seconds(urlParams.graceSeconds ?? 86_400)).pipe(
          Effect.tap(({ status }) => logged("rotateKey", status, { graceSeconds: urlParams.graceSeconds ?? 86_400 })),
          Effect.map(({ secret, status }) => ({ key: KeyView.viewOf(status), secret: Redacted.value(secret) })),
          Effect.catchTags({
            ApiKeyNotFound: notFound,
            InvalidRequest: (error) =>
              Effect.fail(new AdminInvalidRequest({ ...ApiError.describe(error), code: "invalid_request", status: 400 })),
            StoreError: storeFailure
          })
        ))
      .handle("unbanKey", ({ path }) =>
        admin.unban(path.id).pipe(
          Effect.tap(({ lifted, status }) => logged("unbanKey", status, { lifted })),
          Effect.map(({ status }) => KeyView.viewOf(status)),
          Effect.catchTags({ ApiKeyNotFound: notFound, StoreError: storeFailure })
        ))
  ))

const authLive = (token: Redacted.Redacted<string>) => {
  const check = AdminToken.makeCheck(token)
  const refused = new AdminUnauthorized({
    code: "unauthorized",
    message: "A bearer token of the admin API is required",
    status: 401
  })
  return Layer.succeed(AdminAuth, {
    // The header is read here: `securityDecode` accepts any scheme, and gives "" when there is none.
    bearer: () =>
      Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) =>
        check(request.headers["authorization"])
          ? Effect.void
          : Effect.zipRight(
            Effect.logWarning("admin: refused a request without the admin token").pipe(
              Effect.annotateLogs({ "admin.action": "refused", method: request.method, path: request.url })
            ),
            Effect.fail(refused)
          ))
  })
}

/** An undecodable body is an `invalid_request`, a path of no endpoint a `not_found`, both as `Error` bodies. */
const errorBodies = HttpApiBuilder.middleware(Api, (app) =>
  // The platform reads a JSON body with `orDie`: its failure is a defect.
  Effect.catchAllCause(app, (cause): HttpApp.Default<AdminInvalidRequest | AdminNotFound> => {
    const error = Cause.squash(cause)
    return error instanceof HttpApiError.HttpApiDecodeError
      ? Effect.fail(
        new AdminInvalidRequest({
          code: "invalid_request",
          message: `Invalid request: ${error.message.split("\n")[0]}`,
          status: 400
        })
      )
      : HttpServerError.isServerError(error) && error._tag === "RequestError" && error.reason === "Decode"
      ? Effect.fail(new AdminInvalidRequest({ code: "invalid_request", message: "The body is not valid JSON", status: 400 }))
      : HttpServerError.isServerError(error) && error._tag === "RouteNotFound"
      ? Effect.fail(new AdminNotFound({ code: "not_found", message: "No such route", status: 404 }))
      : Effect.failCause(cause as Cause.Cause<never>)
  }))

/**
 * The admin API (handlers, token check, document) on the `KeyAdministration` of the context.
 *
 * @since 1.0.0
 * @category layers
 */
export const layer = (
  token: Redacted.Redacted<string>
): Layer.Layer<HttpApi.Api | HttpApiBuilder.Router | HttpApiBuilder.Middleware, never, KeyAdministration.KeyAdministration> =>
  Layer.mergeAll(
    HttpApiBuilder.middlewareOpenApi({ path: openApiPath }),
    errorBodies
  ).pipe(
    Layer.provideMerge(HttpApiBuilder.api(Api).pipe(Layer.provide(keysLive), Layer.provide(authLive(token)))),
    Layer.provideMerge(Layer.merge(HttpApiBuilder.Router.Live, HttpApiBuilder.Middleware.layer))
  )

/**
 * The admin API as an app for a listener: the paths under `/admin/v1`, until the scope closes.
 *
 * @since 1.0.0
 * @category constructors
 */
export const httpApp = (
  token: Redacted.Redacted<string>
): Effect.Effect<HttpApp.Default, never, KeyAdministration.KeyAdministration | Scope.Scope> =>
  Effect.gen(function*() {
    const context = yield* Layer.build(Layer.merge(layer(token), NodeHttpServer.layerContext))
    const app = yield* Effect.provide(HttpApiBuilder.httpApp, context)
    return Effect.provide(app, context)
  })
