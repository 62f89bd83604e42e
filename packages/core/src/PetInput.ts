/**
 * The operations' inputs as a client sends them, decoded once at the boundary;
 * a refusal is an `InvalidRequest` listing every problem.
 *
 * @since 1.0.0
 */
import { Effect, Schema } from "effect"
import type { InvalidRequest } from "./ApiError.js"
import { defaultLimit, LimitInput, ListPetsQuery } from "./ListPetsQuery.js"
import type { PetId } from "./Pet.js"
import { defaultStatus, NewPet, PetIdInput, PetStatus } from "./Pet.js"
import { decodeInput } from "./internal/decode.js"

// Decoded in two steps, as `NewPet` below: the fields with `limit` optional, then the default.
const ListPetsQueryFields = Schema.Struct({
  ...ListPetsQuery.fields,
  limit: Schema.optionalWith(LimitInput, { exact: true })
}).annotations({ identifier: "ListPetsQuery", parseOptions: { onExcessProperty: "ignore" } })
const decodeListPetsQueryFields = decodeInput(ListPetsQueryFields, "query")
const withDefaultLimit = (fields: typeof ListPetsQueryFields.Type): ListPetsQuery => ({
  ...fields,
  limit: fields.limit ?? defaultLimit
})

/**
 * A `listPets` query: `{limit?, status?, cursor?}`; other properties are ignored.
 *
 * @since 1.0.0
 * @category decoding
 */
export const decodeListPetsQuery = (input: unknown): Effect.Effect<ListPetsQuery, InvalidRequest> =>
  Effect.map(decodeListPetsQueryFields(input), withDefaultLimit)

/**
 * An animal's id: a number or a decimal string.
 *
 * @since 1.0.0
 * @category decoding
 */
export const decodePetId: (input: unknown) => Effect.Effect<PetId, InvalidRequest> = decodeInput(PetIdInput, "pet id")

// Decoded in two steps: the fields with `status` optional (same rules and issues), then the default.
const NewPetFields = Schema.Struct({
  ...NewPet.fields,
  status: Schema.optionalWith(PetStatus, { exact: true })
}).annotations({ identifier: "NewPet" }) // decodeInput refuses other properties
const decodeNewPetFields = decodeInput(NewPetFields, "pet")
const withDefaultStatus = ({ categoryId, name, status = defaultStatus }: typeof NewPetFields.Type): NewPet => ({
  name,
  categoryId,
  status
})

/**
 * A `createPet` body: `{name, categoryId, status?}` and nothing else.
 *
 * @since 1.0.0
 * @category decoding
 */
export const decodeNewPet = (body: unknown): Effect.Effect<NewPet, InvalidRequest> =>
  Effect.map(decodeNewPetFields(body), withDefaultStatus)
