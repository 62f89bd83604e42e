/**
 * The handlers of the operations, for a request already admitted: each
 * decodes its input with core's `PetInput`, calls core's `PetOperations` and
 * answers with the result (200, 201 with `Location`, `Link` to a next page)
 * or with `ErrorResponse` for a failure.
 *
 * @since 1.0.0
 */
import type { ApiKey, ListPetsQuery } from "@animal-store/core"
import { Pet, PetInput, PetOperations } from "@animal-store/core"
import { Effect } from "effect"
import * as ErrorResponse from "./ErrorResponse.js"
import * as HttpExchange from "./HttpExchange.js"
import * as Shortcuts from "./internal/shortcuts.js"
import { basePath } from "./PetsApi.js"
import * as RequestBody from "./RequestBody.js"
import * as Routes from "./Routes.js"

/**
 * The path of an animal, as in `Location`, under `linkBase` (the path of the
 * base address, `/v1` unless configured).
 *
 * @since 1.0.0
 * @category constructors
 */
export const petPath = (id: number, linkBase: string = basePath): string => `${linkBase}/pets/${id}`

/** 201 with the pet and `Location`; a replay of an `Idempotency-Key` also has `Idempotent-Replayed: true`. */
const createdResponse = (pet: Pet.Pet, replayed: boolean, linkBase: string): HttpExchange.Response =>
  HttpExchange.jsonText(Shortcuts.petJsonText(pet), {
    status: 201,
    headers: replayed
      ? { location: petPath(pet.id, linkBase), "idempotent-replayed": "true" }
      : { location: petPath(pet.id, linkBase) }
  })

type QueryValue = string | ReadonlyArray<string> | undefined

/**
 * The link to the next page under `linkBase`: the request's `limit` and
 * `status` with the next cursor.
 *
 * @since 1.0.0
 * @category constructors
 */
export const nextLink = (
  query: { readonly limit?: QueryValue; readonly status?: QueryValue },
  cursor: string,
  linkBase: string = basePath
): string => {
  const params = new URLSearchParams()
  if (typeof query.limit === "string") params.set("limit", query.limit)
  if (typeof query.status === "string") params.set("status", query.status)
  params.set("cursor", cursor)
  return `<${linkBase}/pets?${params.toString()}>; rel="next"`
}

const pageResponse = (
  page: ListPetsQuery.PetPage,
  query: { readonly limit?: QueryValue; readonly status?: QueryValue },
  linkBase: string
): HttpExchange.Response =>
  HttpExchange.jsonText(
    Shortcuts.petsJsonBytes(page.pets),
    page.nextCursor === undefined ? undefined : { headers: { link: nextLink(query, page.nextCursor, linkBase) } }
  )

/**
 * What a handler reads of its request: the request (its URL, its headers, its
 * body), the percent-decoded path parameters, and the key it was admitted as.
 *
 * @since 1.0.0
 * @category models
 */
export interface Inputs {
  readonly request: HttpExchange.Request
  readonly params: Readonly<Record<string, string>>
  readonly principal: ApiKey.Principal
}

/**
 * The handler of one operation: its response, every failure answered.
 *
 * @since 1.0.0
 * @category models
 */
export type Handler = (inputs: Inputs) => Effect.Effect<HttpExchange.Response>

const listParameters: ReadonlySet<string> = new Set(["limit", "status", "cursor"])

/**
 * The listing parameters of a request URL, as sent: each absent, sent once
 * (a string) or more than once (all its values, in order).
 */
const listQueryOf = (
  url: string
): { readonly limit?: QueryValue; readonly status?: QueryValue; readonly cursor?: QueryValue } => {
  const query: Record<string, string | Array<string>> = {}
  for (const [name, value] of Routes.queryOf(url)) {
    if (!listParameters.has(name)) continue
    const sent = query[name]
    if (sent === undefined) query[name] = value
    else if (typeof sent === "string") query[name] = [sent, value]
    else sent.push(value)
  }
  return query
}

/**
 * The handlers of the operations, on core's trusted `PetOperations`; their
 * `Location` and `Link` are under `linkBase` (default `/v1`); their store
 * failures are told to `report` (`ErrorResponse.respond`).
 *
 * @since 1.0.0
 * @category constructors
 */
export const make = (
  linkBase: string = basePath,
  report?: ErrorResponse.StoreFailureReport
): Effect.Effect<Record<PetOperations.OperationName, Handler>, never, PetOperations.PetOperations> =>
  Effect.map(PetOperations.PetOperations, (operations) => ({
    listPets: ({ request }) => {
      const listQuery = listQueryOf(request.url)
      return ErrorResponse.recover(
        Effect.map(
          Effect.flatMap(PetInput.decodeListPetsQuery(listQuery), operations.listPets),
          (page) => pageResponse(page, listQuery, linkBase)
        ),
        report
      )
    },
    createPet: ({ principal, request }) => {
      const idempotencyKey = HttpExchange.header(request, "idempotency-key")
      return ErrorResponse.recover(
        Effect.map(
          Effect.flatMap(RequestBody.json(request), (body) =>
            Effect.flatMap(PetInput.decodeNewPet(body), (pet) =>
              operations.createPet(
                pet,
                idempotencyKey === undefined ? undefined : { idempotencyKey, idempotencyScope: principal.keyId, body }
              ))),
          ({ pet, replayed }) => createdResponse(pet, replayed, linkBase)
        ),
        report
      )
    },
    getPet: ({ params }) =>
      ErrorResponse.recover(
        Effect.map(
          Effect.flatMap(PetInput.decodePetId(params["petId"]), operations.getPet),
          (pet) => HttpExchange.jsonText(Shortcuts.petJsonText(pet))
        ),
        report
      )
  }))
