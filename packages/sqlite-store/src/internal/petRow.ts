import { Pet } from "@animal-store/core"

/**
 * A row of a `Pet`'s columns as arrays of column values: id, name, category
 * id, status.
 *
 * @internal
 */
export type PetRow = readonly [id: number, name: string, categoryId: number, status: Pet.PetStatus]

/**
 * The `Pet` of a row. Rows are read as arrays of column values (cheaper than
 * objects). They hold what was stored from a valid `Pet` (STRICT types and
 * CHECK constraints keep their shape) and `Pet` has no defaults: make the
 * instance as its constructor does without validation, minus the
 * constructor's generic per-call work, which was most of the cost of listing
 * a page.
 *
 * @internal
 */
export const toPet = (row: PetRow): Pet.Pet => {
  const pet = Object.create(Pet.Pet.prototype) as { -readonly [K in keyof Pet.Pet]: Pet.Pet[K] }
  pet.id = row[0] as Pet.PetId
  pet.name = row[1]
  pet.categoryId = row[2] as Pet.CategoryId
  pet.status = row[3]
  return pet
}
