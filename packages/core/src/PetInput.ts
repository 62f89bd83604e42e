/**
 * The inputs of the operations as a client sends them, decoded once at the
 * boundary (the HTTP handlers, the Promise facade, `GuardedPetOperations`)
 * into the typed values `PetOperations` takes. A refusal is an
 * `InvalidRequest` listing every problem as `{path, message}`.
 *
 * @since 1.0.0
 */
import { Effect, Schema } from "effect"
import type { InvalidRequest } from "./ApiError.js"
import { defaultLimit, isCursor, LimitInput, ListPetsQuery, maxLimit } from "./ListPetsQuery.js"
import type { CategoryId, PetId } from "./Pet.js"
import { defaultStatus, maxNameLength, NewPet, PetIdInput, PetStatus } from "./Pet.js"
import { decodeInput } from "./internal/decode.js"
import { hasUnpairedSurrogate, plainDecimal } from "./internal/schemas.js"

// `ListPetsQuery` decoded in two steps, as `NewPet` below: its fields as
// sent, with `limit` optional (the same rules and issues), then the default.
const ListPetsQueryFields = Schema.Struct({
  ...ListPetsQuery.fields,
  limit: Schema.optionalWith(LimitInput, { exact: true })
}).annotations({ identifier: "ListPetsQuery", parseOptions: { onExcessProperty: "ignore" } })
const decodeListPetsQueryFields = decodeInput(ListPetsQueryFields, "query")
const withDefaultLimit = (fields: typeof ListPetsQueryFields.Type): ListPetsQuery => ({
  ...fields,
  limit: fields.limit ?? defaultLimit
})

const statuses: ReadonlyArray<unknown> = PetStatus.literals

const isStatus = (value: unknown): value is PetStatus => statuses.includes(value)

/**
 * A `listPets` query decoded by the schema alone, every query judged by its
 * parser: what `decodeListPetsQuery` gives.
 * @internal
 */
export const decodeListPetsQueryWithSchema = (input: unknown): Effect.Effect<ListPetsQuery, InvalidRequest> =>
  Effect.map(decodeListPetsQueryFields(input), withDefaultLimit)

/**
 * Whether `input` has `key` as its own property exactly when its value is
 * defined: the schema's fields are exactly optional (an own property of
 * value `undefined` is refused) and read only own properties.
 */
const ownWhenDefined = (input: object, key: string, value: unknown): boolean =>
  Object.hasOwn(input, key) === (value !== undefined)

/**
 * The `ListPetsQuery` of a plain object (as a query string is read into)
 * whose own `limit`, `status` and `cursor`, each absent or valid as the
 * schema reads it, are all it has to say; `undefined` for anything else,
 * which the schema then judges.
 */
const plainListPetsQuery = (input: unknown): ListPetsQuery | undefined => {
  if (typeof input !== "object" || input === null || Object.getPrototypeOf(input) !== Object.prototype) return undefined
  const { cursor, limit, status } = input as { limit?: unknown; status?: unknown; cursor?: unknown }
  const pageSize = limit === undefined ? defaultLimit : typeof limit === "string" ? plainDecimal(limit) : limit
  if (typeof pageSize !== "number" || !Number.isInteger(pageSize) || pageSize < 1 || pageSize > maxLimit) return undefined
  if (!(status === undefined || isStatus(status)) || !(cursor === undefined || (typeof cursor === "string" && isCursor(cursor)))) {
    return undefined
  }
  if (!ownWhenDefined(input, "limit", limit) || !ownWhenDefined(input, "status", status)) return undefined
  if (!ownWhenDefined(input, "cursor", cursor)) return undefined
  const query: { limit: number; status?: PetStatus; cursor?: string } = { limit: pageSize }
  if (status !== undefined) query.status = status
  if (cursor !== undefined) query.cursor = cursor
  return query
}

/**
 * A `listPets` query: `{limit?, status?, cursor?}`, `limit` a number or a
 * decimal string (default 20); other properties are ignored. A plain query of
 * valid values is read directly; any other gets the schema's issues.
 *
 * @since 1.0.0
 * @category decoding
 */
export const decodeListPetsQuery = (input: unknown): Effect.Effect<ListPetsQuery, InvalidRequest> => {
  const query = plainListPetsQuery(input)
  return query !== undefined ? Effect.succeed(query) : decodeListPetsQueryWithSchema(input)
}

const decodePetIdInput = decodeInput(PetIdInput, "pet id")

/**
 * An animal's id: a number or a decimal string. An id as sent in a path (up
 * to 16 digits, or a safe integer from 1) is read directly; any other input
 * gets the issues of `PetIdInput`.
 *
 * @since 1.0.0
 * @category decoding
 */
export const decodePetId = (input: unknown): Effect.Effect<PetId, InvalidRequest> => {
  const id = typeof input === "string" ? plainDecimal(input) : input
  return typeof id === "number" && Number.isSafeInteger(id) && id >= 1
    ? Effect.succeed(id as PetId)
    : decodePetIdInput(input)
}

// `NewPet` decoded in two steps: its fields as sent, with `status` optional
// (the same rules and issues), then the default `status`.
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
 * A `createPet` body decoded by the schema alone, every body judged by its
 * parser: what `decodeNewPet` gives.
 * @internal
 */
export const decodeNewPetWithSchema = (body: unknown): Effect.Effect<NewPet, InvalidRequest> =>
  Effect.map(decodeNewPetFields(body), withDefaultStatus)

/**
 * The `NewPet` of a plain object (as `JSON.parse` makes) that the schema
 * accepts in the common way: its own `name` and `categoryId`, `status` or
 * not, nothing else; a name of at most 255 UTF-16 units once trimmed.
 * `undefined` for anything else, which the schema then judges.
 */
const plainNewPet = (body: unknown): NewPet | undefined => {
  if (typeof body !== "object" || body === null || Object.getPrototypeOf(body) !== Object.prototype) return undefined
  const { categoryId, name, status } = body as { name?: unknown; categoryId?: unknown; status?: unknown }
  // Its own properties are `name`, `categoryId` and, when defined, `status`: nothing else.
  if (!ownWhenDefined(body, "name", name) || !ownWhenDefined(body, "categoryId", categoryId)) return undefined
  if (!ownWhenDefined(body, "status", status) || Object.getOwnPropertySymbols(body).length > 0) return undefined
  if (Object.keys(body).length !== (status === undefined ? 2 : 3)) return undefined
  if (typeof name !== "string" || typeof categoryId !== "number" || !Number.isSafeInteger(categoryId) || categoryId < 1) {
    return undefined
  }
  if (!(status === undefined || isStatus(status))) return undefined
  const trimmed = name.trim()
  if (trimmed.length === 0 || trimmed.length > maxNameLength || hasUnpairedSurrogate(trimmed)) return undefined
  return { name: trimmed, categoryId: categoryId as CategoryId, status: status ?? defaultStatus }
}

/**
 * A `createPet` body: `{name, categoryId, status?}` and nothing else; the
 * name trimmed, `status` defaulting to `available`. A plain body the schema
 * accepts (`plainNewPet`) is read directly; any other gets the schema's issues.
 *
 * @since 1.0.0
 * @category decoding
 */
export const decodeNewPet = (body: unknown): Effect.Effect<NewPet, InvalidRequest> => {
  const pet = plainNewPet(body)
  return pet !== undefined ? Effect.succeed(pet) : decodeNewPetWithSchema(body)
}
