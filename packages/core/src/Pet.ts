/**
 * The animal records of the interface: `Pet`, `NewPet`, `PetStatus` and the
 * identifiers they carry.
 *
 * @since 1.0.0
 */
import { Schema } from "effect"
import { hasUnpairedSurrogate, NumberOrIntString, PositiveSafeInt, PositiveSafeIntFromString } from "./internal/schemas.js"

/**
 * Identifier of an animal: an integer from 1 to 2^53-1, assigned by the store
 * in increasing order and never reused.
 *
 * @since 1.0.0
 * @category schemas
 */
export const PetId = PositiveSafeInt.pipe(Schema.brand("PetId"))

/**
 * @since 1.0.0
 * @category models
 */
export type PetId = typeof PetId.Type

/**
 * `PetId` read from a path parameter: only a plain decimal positive integer is accepted.
 *
 * @since 1.0.0
 * @category schemas
 */
export const PetIdFromString = Schema.compose(PositiveSafeIntFromString, PetId)

/**
 * `PetId` from untrusted input: a number, or a decimal string as in a path.
 *
 * @since 1.0.0
 * @category schemas
 */
export const PetIdInput = Schema.compose(NumberOrIntString, PetId)

/**
 * Identifier of the category an animal belongs to: an integer from 1 to 2^53-1.
 *
 * @since 1.0.0
 * @category schemas
 */
export const CategoryId = PositiveSafeInt.pipe(Schema.brand("CategoryId"))

/**
 * @since 1.0.0
 * @category models
 */
export type CategoryId = typeof CategoryId.Type

/**
 * Availability status of an animal.
 *
 * @since 1.0.0
 * @category schemas
 */
export const PetStatus = Schema.Literal("available", "pending", "sold").annotations({
  message: () => ({ message: "must be one of available, pending, sold", override: true })
})

/**
 * @since 1.0.0
 * @category models
 */
export type PetStatus = typeof PetStatus.Type

/**
 * The status stored when `NewPet.status` is omitted.
 *
 * @since 1.0.0
 * @category constants
 */
export const defaultStatus: PetStatus = "available"

/**
 * Longest name, in Unicode code points, after trimming.
 *
 * @since 1.0.0
 * @category constants
 */
export const maxNameLength = 255

/**
 * The name of an animal: 1 to 255 Unicode code points after trimming
 * surrounding white space; it is stored trimmed. It must be Unicode text: an
 * unpaired surrogate (`"\ud800"` in JSON) has no UTF-8 form, so no store
 * could keep it as sent.
 *
 * @since 1.0.0
 * @category schemas
 */
export const PetName = Schema.String.pipe(
  Schema.filter((s) => s.length > 0 || "must not be empty", { identifier: "NonEmptyName" }),
  Schema.filter((s) => !hasUnpairedSurrogate(s) || "must be Unicode text (no unpaired surrogates)", {
    identifier: "WellFormedName"
  }),
  Schema.filter(
    (s) => s.length <= maxNameLength || [...s].length <= maxNameLength || `must be at most ${maxNameLength} characters`,
    { identifier: "NameMaxLength" }
  )
)

/**
 * `PetName` from any string: surrounding white space is trimmed before the length rules.
 *
 * @since 1.0.0
 * @category schemas
 */
export const PetNameFromString = Schema.compose(Schema.Trim, PetName)

/**
 * An animal as stored and returned.
 *
 * @since 1.0.0
 * @category schemas
 */
export class Pet extends Schema.Class<Pet>("Pet")({
  id: PetId,
  name: PetName,
  categoryId: CategoryId,
  status: PetStatus
}) {}

/**
 * The request body of `createPet`: `name` and `categoryId` are required,
 * `status` defaults to `available`, and any other property (`id` included) is
 * rejected by name.
 *
 * @since 1.0.0
 * @category schemas
 */
export const NewPet = Schema.Struct({
  name: PetNameFromString,
  categoryId: CategoryId,
  status: Schema.optionalWith(PetStatus, { exact: true, default: () => defaultStatus })
}).annotations({ identifier: "NewPet", parseOptions: { onExcessProperty: "error" } })

/**
 * A decoded `NewPet`: trimmed name, status filled in.
 *
 * @since 1.0.0
 * @category models
 */
export type NewPet = typeof NewPet.Type
