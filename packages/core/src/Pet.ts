/**
 * The animal records of the interface: `Pet`, `NewPet`, `PetStatus` and their identifiers.
 *
 * @since 1.0.0
 */
import { Schema } from "effect"
import { hasUnpairedSurrogate, NumberOrIntString, PositiveSafeInt, PositiveSafeIntFromString } from "./internal/schemas.js"

/**
 * Identifier of an animal (1 to 2^53-1), assigned by the store in increasing order, never reused.
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
 * The name of an animal: 1 to 255 code points once trimmed, Unicode text
 * (no unpaired surrogate, which has no UTF-8 form).
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
 * The body of `createPet`: `status` defaults to `available`; any other property is rejected.
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
