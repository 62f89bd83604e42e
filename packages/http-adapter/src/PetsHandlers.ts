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
import type * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { Effect, Layer, Schema } from "effect"
import * as AccessMiddleware from "./AccessMiddleware.js"
import * as ErrorResponse from "./ErrorResponse.js"
import { jsonResponse } from "./internal/json.js"
import { Authorization, basePath, PetsApi } from "./PetsApi.js"
import * as RequestBody from "./RequestBody.js"

const encodePet = Schema.encodeSync(Pet.Pet)

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
 * The handlers of the group `pets`.
 *
 * @since 1.0.0
 * @category layers
 */
export const layerGroup = HttpApiBuilder.group(PetsApi, "pets", (handlers) =>
  Effect.gen(function*() {
    const operations = yield* PetOperations.PetOperations
    return handlers
      .handleRaw("listPets", ({ urlParams }) =>
        ErrorResponse.recover(
          Effect.map(operations.listPets(urlParams), (page) => pageResponse(page, urlParams))
        ))
      .handleRaw("createPet", ({ request }) =>
        ErrorResponse.recover(
          RequestBody.json(request).pipe(
            Effect.flatMap(operations.createPet),
            Effect.map((pet) =>
              jsonResponse(encodePet(pet), { status: 201, headers: { location: petPath(pet.id) } })
            )
          )
        ))
      .handleRaw("getPet", ({ path }) =>
        ErrorResponse.recover(Effect.map(operations.getPet(path.petId), (pet) => jsonResponse(encodePet(pet)))))
  }))

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
