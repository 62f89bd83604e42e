/**
 * Core's `Pet` from the store's rows, read as arrays of column values or as
 * objects by column name. A row holds what the store wrote from a valid instance (STRICT types and CHECK
 * constraints keep its shape), so it is not validated again.
 *
 * @internal
 */
import { Pet } from "@animal-store/core"

/** A pet's columns, in the order of its rows. */
export const petColumns = "id, name, category_id, status"

/** A row of `petColumns`. */
export type PetRow = readonly [id: number, name: string, categoryId: number, status: Pet.PetStatus]

/** The `Pet` of a row of `petColumns`. */
export const toPet = (row: PetRow): Pet.Pet =>
  new Pet.Pet({ id: row[0] as Pet.PetId, name: row[1], categoryId: row[2] as Pet.CategoryId, status: row[3] }, true)

/** A row of `petColumns` read as an object. */
export interface PetObject {
  readonly id: number
  readonly name: string
  readonly category_id: number
  readonly status: Pet.PetStatus
}

/** The `Pet` of a row of `petColumns` read as an object. */
export const toPetFromObject = (row: PetObject): Pet.Pet =>
  new Pet.Pet({ id: row.id as Pet.PetId, name: row.name, categoryId: row.category_id as Pet.CategoryId, status: row.status }, true)
