/**
 * The HttpApi definition of the interface: `listPets`, `createPet` and `getPet`
 * (deprecated) under the bearer scheme, as one route table (`endpoints`) the
 * routes and the OpenAPI document come from. The server validates with core's
 * schemas, not with it; it also serves typed clients (`HttpApiClient`).
 *
 * @since 1.0.0
 */
import type { PetOperations } from "@animal-store/core"
import { Idempotency, ListPetsQuery, Pet } from "@animal-store/core"
import * as HttpApi from "@effect/platform/HttpApi"
import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import * as OpenApi from "@effect/platform/OpenApi"
import type { HttpMethod } from "@effect/platform/HttpMethod"
import type * as HttpRouter from "@effect/platform/HttpRouter"
import { Schema } from "effect"
import * as OperationDocs from "./internal/operationDocs.js"
import * as ProtocolError from "./ProtocolError.js"

/**
 * The version segment every path starts with.
 *
 * @since 1.0.0
 * @category constants
 */
export const basePath = "/v1" as const

/**
 * Where the OpenAPI document is served (no key needed).
 *
 * @since 1.0.0
 * @category constants
 */
export const openApiPath = "/v1/openapi.json" as const

/**
 * Where the API reference page (Scalar) is served (no key needed).
 *
 * @since 1.0.0
 * @category constants
 */
export const docsPath = "/v1/docs" as const

/**
 * The `Error` body of `code`, answered with its status (`ProtocolError.statusByCode`).
 *
 * @since 1.0.0
 * @category schemas
 */
export const errorOf = (code: ProtocolError.ErrorCode) =>
  ProtocolError.ErrorBody.annotations({
    identifier: "Error",
    ...HttpApiSchema.annotations({ status: ProtocolError.statusByCode[code] })
  })

/**
 * `limit` as a query string carries it: a decimal integer from 1 to 100.
 * @internal
 */
const LimitFromString = Schema.compose(Schema.NumberFromString, ListPetsQuery.Limit).annotations({
  description: "Maximum number of animals returned.",
  jsonSchema: {
    type: "integer",
    minimum: 1,
    maximum: ListPetsQuery.maxLimit,
    default: ListPetsQuery.defaultLimit,
    description: "Maximum number of animals returned."
  }
})

/**
 * An animal's id as a path segment carries it: a decimal integer from 1 to 2^53-1.
 * @internal
 */
const PetIdFromPath = Pet.PetIdFromString.annotations({
  description: "Identifier of the animal to retrieve.",
  jsonSchema: {
    type: "integer",
    format: "int64",
    minimum: 1,
    maximum: Number.MAX_SAFE_INTEGER,
    description: "Identifier of the animal to retrieve."
  }
})

const Pets = Schema.Array(Pet.Pet).annotations({ identifier: "Pets" })

const listPets = HttpApiEndpoint.get("listPets", "/pets")
  .setUrlParams(Schema.Struct({
    limit: Schema.optional(LimitFromString),
    status: Schema.optional(Pet.PetStatus.annotations({ description: "Filters by availability status." })),
    cursor: Schema.optional(ListPetsQuery.Cursor.annotations({
      description: "Continues a listing: the opaque cursor of the previous page's `Link: <...>; rel=\"next\"`."
    }))
  }))
  .addSuccess(Pets)
  .addError(errorOf("invalid_request"))
  .annotate(OpenApi.Transform, OperationDocs.operation({ success: [OperationDocs.sometimes("Link")] }))
  .annotate(OpenApi.Summary, "List animals")
  .annotate(
    OpenApi.Description,
    "Animals in ascending id order, optionally filtered by status. A response with more animals carries `Link: <...>; rel=\"next\"`."
  )

const createPet = HttpApiEndpoint.post("createPet", "/pets")
  .setHeaders(Schema.Struct({
    "idempotency-key": Schema.optional(Schema.String.annotations({
      jsonSchema: {
        ...Idempotency.keyJsonSchema,
        description: "A key of the client's choosing (1 to 255 visible ASCII characters, else 400), scoped to the " +
          "API key and remembered for 24 hours from the first request: a retry with the same key and the same " +
          "JSON body gets the first 201 again (`Idempotent-Replayed: true`) and creates nothing; another body " +
          "gets 422 `idempotency_key_reused`, and a retry while the first request is being processed 409 " +
          "`idempotency_key_in_use`."
      }
    }))
  }))
  .setPayload(Pet.NewPet)
  .addSuccess(Pet.Pet, { status: 201 })
  .addError(errorOf("invalid_request"))
  .addError(errorOf("idempotency_key_in_use"))
  .addError(errorOf("payload_too_large"))
  .addError(errorOf("unsupported_media_type"))
  .addError(errorOf("idempotency_key_reused"))
  .annotate(
    OpenApi.Transform,
    OperationDocs.operation({
      success: [OperationDocs.always("Location"), OperationDocs.sometimes("Idempotent-Replayed")],
      requestHeaders: { "idempotency-key": "Idempotency-Key" }
    })
  )
  .annotate(OpenApi.Summary, "Add an animal")
  .annotate(
    OpenApi.Description,
    "Bodies are `application/json` of at most 65,536 bytes. Answers the created animal with `Location: /v1/pets/{id}`. " +
      "With `Idempotency-Key`, a retried request never creates a second animal."
  )

const getPet = HttpApiEndpoint.get("getPet", "/pets/:petId")
  .setPath(Schema.Struct({
    petId: PetIdFromPath
  }))
  .addSuccess(Pet.Pet)
  .addError(errorOf("invalid_request"))
  .addError(errorOf("not_found"))
  .addError(errorOf("gone"))
  .annotate(
    OpenApi.Transform,
    OperationDocs.operation({
      every: [
        OperationDocs.always("Deprecation"),
        OperationDocs.always("Sunset"),
        OperationDocs.always("SuccessorLink", "Link")
      ]
    })
  )
  .annotate(OpenApi.Summary, "Get an animal (deprecated)")
  .annotate(
    OpenApi.Description,
    "Deprecated: removed on 5 December 2030 (`Sunset`); from then on it answers 410. Use `GET /pets` with the `status` filter."
  )
  .annotate(OpenApi.Deprecated, true)

/**
 * An endpoint of the interface, named as the operation of core it serves.
 *
 * @since 1.0.0
 * @category models
 */
export interface OperationEndpoint<Name extends PetOperations.OperationName> extends HttpApiEndpoint.HttpApiEndpoint.Any {
  readonly name: Name
  readonly method: HttpMethod
  readonly path: HttpRouter.PathInput
}

/**
 * The route table: the endpoint of each operation of core, by its name, so
 * an operation is added in one place.
 *
 * @since 1.0.0
 * @category endpoints
 */
export const endpoints = {
  listPets,
  createPet,
  getPet
} as const satisfies { readonly [Name in PetOperations.OperationName]: OperationEndpoint<Name> }

/**
 * The group `Pets`: the three operations, each secured by the bearer scheme.
 *
 * @since 1.0.0
 * @category groups
 */
export class PetsGroup extends HttpApiGroup.make("pets", { topLevel: true })
  .add(endpoints.listPets)
  .add(endpoints.createPet)
  .add(endpoints.getPet)
  .addError(errorOf("unauthorized"))
  .addError(errorOf("rate_limited"))
  .addError(errorOf("internal_error"))
  .addError(errorOf("service_unavailable"))
  .annotate(OpenApi.Title, "Pets")
{}

/**
 * The Animal Store interface, version 1.0.0.
 *
 * @since 1.0.0
 * @category api
 */
export class PetsApi extends HttpApi.make("animal-store")
  .add(PetsGroup)
  .annotate(OpenApi.Title, "Animal Store")
  .annotate(OpenApi.Version, "1.0.0")
  .annotate(
    OpenApi.Description,
    "An HTTP+JSON store of animals with bearer API keys, plan rate limits and a deprecated operation."
  )
{}
