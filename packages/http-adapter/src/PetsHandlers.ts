/**
 * The handlers of `PetsApi`: each maps its request to one of core's trusted
 * `PetOperations` (the request was already admitted by `AccessMiddleware`)
 * and the result to its response: 200 with the pets and `Link: <...>;
 * rel="next"` when there are more, 201 with the pet and `Location`, 200 with
 * the pet. Every failure is answered by `ErrorResponse`.
 *
 * @since 1.0.0
 */
import type { ListPetsQuery } from "@animal-store/core"
import { Pet, PetOperations } from "@animal-store/core"
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import type * as HttpApp from "@effect/platform/HttpApp"
import type * as HttpMethod from "@effect/platform/HttpMethod"
import * as HttpRouter from "@effect/platform/HttpRouter"
import type * as HttpServerError from "@effect/platform/HttpServerError"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import type * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Effect, Layer } from "effect"
import * as AccessMiddleware from "./AccessMiddleware.js"
import * as ErrorResponse from "./ErrorResponse.js"
import { jsonResponse } from "./internal/json.js"
import { Authorization, basePath, PetsApi } from "./PetsApi.js"
import * as RequestBody from "./RequestBody.js"
import * as Routes from "./Routes.js"

/**
 * The wire form of a pet: `Pet.Pet`'s encoded side, field by field. Its
 * fields need no transformation, so this is `Schema.encodeSync(Pet.Pet)`
 * without re-validating every field of every pet served; the return type
 * makes a change of `Pet` (a field added, a transformed field) a type error.
 */
const encodePet = (pet: Pet.Pet): typeof Pet.Pet.Encoded => ({
  id: pet.id,
  name: pet.name,
  categoryId: pet.categoryId,
  status: pet.status
})

/**
 * The path of an animal, as in `Location`.
 *
 * @since 1.0.0
 * @category constructors
 */
export const petPath = (id: number): string => `${basePath}/pets/${id}`

type QueryValue = string | ReadonlyArray<string> | undefined

/**
 * The link to the next page: the request's `limit` and `status` with the next cursor.
 *
 * @since 1.0.0
 * @category constructors
 */
export const nextLink = (
  query: { readonly limit?: QueryValue; readonly status?: QueryValue },
  cursor: string
): string => {
  const params = new URLSearchParams()
  if (typeof query.limit === "string") params.set("limit", query.limit)
  if (typeof query.status === "string") params.set("status", query.status)
  params.set("cursor", cursor)
  return `<${basePath}/pets?${params.toString()}>; rel="next"`
}

const pageResponse = (
  page: ListPetsQuery.PetPage,
  query: { readonly limit?: QueryValue; readonly status?: QueryValue }
): HttpServerResponse.HttpServerResponse =>
  jsonResponse(
    page.pets.map((pet) => encodePet(pet)),
    page.nextCursor === undefined ? {} : { headers: { link: nextLink(query, page.nextCursor) } }
  )

/**
 * What a handler reads of its request: the request (for its body), the path
 * parameters and the query parameters, as the router parsed them.
 *
 * @since 1.0.0
 * @category models
 */
export interface Inputs {
  readonly request: HttpServerRequest.HttpServerRequest
  readonly path: Readonly<Record<string, string | undefined>>
  readonly urlParams: Readonly<Record<string, string | ReadonlyArray<string> | undefined>>
}

/**
 * The handler of one operation: its response, every failure answered.
 *
 * @since 1.0.0
 * @category models
 */
export type Handler = (inputs: Inputs) => Effect.Effect<HttpServerResponse.HttpServerResponse>

const queryOf = (urlParams: Inputs["urlParams"]): { readonly limit?: QueryValue; readonly status?: QueryValue; readonly cursor?: QueryValue } => {
  const { cursor, limit, status } = urlParams
  return {
    ...(limit === undefined ? {} : { limit }),
    ...(status === undefined ? {} : { status }),
    ...(cursor === undefined ? {} : { cursor })
  }
}

/**
 * The handlers of the operations, on core's trusted `PetOperations`.
 *
 * @since 1.0.0
 * @category constructors
 */
export const make: Effect.Effect<Record<PetOperations.OperationName, Handler>, never, PetOperations.PetOperations> =
  Effect.map(PetOperations.PetOperations, (operations) => ({
    listPets: ({ urlParams }) => {
      const query = queryOf(urlParams)
      return ErrorResponse.recover(Effect.map(operations.listPets(query), (page) => pageResponse(page, query)))
    },
    createPet: ({ request }) =>
      ErrorResponse.recover(
        RequestBody.json(request).pipe(
          Effect.flatMap(operations.createPet),
          Effect.map((pet) => jsonResponse(encodePet(pet), { status: 201, headers: { location: petPath(pet.id) } }))
        )
      ),
    getPet: ({ path }) =>
      ErrorResponse.recover(Effect.map(operations.getPet(path["petId"]), (pet) => jsonResponse(encodePet(pet))))
  }))

/**
 * The operations as a plain router (the paths and methods of `Routes`), for
 * `AccessMiddleware` to serve admitted requests without the per-request
 * machinery of `HttpApiBuilder`.
 *
 * @since 1.0.0
 * @category constructors
 */
export const router: Effect.Effect<HttpApp.Default<HttpServerError.RouteNotFound>, never, PetOperations.PetOperations> =
  Effect.flatMap(make, (handlers) =>
    HttpRouter.toHttpApp(
      HttpRouter.fromIterable(
        Routes.entries.flatMap(({ method, path, route }) =>
          route._tag === "Operation"
            ? [
              HttpRouter.makeRoute(
                method as HttpMethod.HttpMethod,
                path as HttpRouter.PathInput,
                Effect.flatMap(
                  Effect.all([HttpServerRequest.HttpServerRequest, HttpRouter.RouteContext, HttpServerRequest.ParsedSearchParams]),
                  ([request, context, urlParams]) => handlers[route.operation]({ request, path: context.params, urlParams })
                )
              )
            ]
            : []
        )
      )
    ))

/**
 * The handlers of the group `pets` (the same handlers as `router`).
 *
 * @since 1.0.0
 * @category layers
 */
export const layerGroup = HttpApiBuilder.group(PetsApi, "pets", (group) =>
  Effect.map(make, (handlers) =>
    group
      .handleRaw("listPets", ({ request, urlParams }) => handlers.listPets({ request, path: {}, urlParams }))
      .handleRaw("createPet", ({ request }) => handlers.createPet({ request, path: {}, urlParams: {} }))
      .handleRaw("getPet", ({ path, request }) => handlers.getPet({ request, path, urlParams: {} }))))

/**
 * The bearer security of the group: the principal `AccessMiddleware` admitted.
 *
 * @since 1.0.0
 * @category layers
 */
export const layerAuthorization = Layer.succeed(Authorization, {
  bearer: () =>
    Effect.flatMap(Effect.serviceOption(AccessMiddleware.RequestAdmission), (admission) =>
      admission._tag === "Some" && admission.value.principal !== undefined
        ? Effect.succeed(admission.value.principal)
        : Effect.dieMessage("An operation was routed without an admitted principal"))
})

/**
 * The handlers with their security.
 *
 * @since 1.0.0
 * @category layers
 */
export const layer = Layer.provide(layerGroup, layerAuthorization)
