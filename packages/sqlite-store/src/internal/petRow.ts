import type { Pet } from "@animal-store/core"
import { StoreRows } from "@animal-store/core"

/**
 * A row of a `Pet`'s columns as arrays of column values: id, name, category
 * id, status.
 *
 * @internal
 */
export type PetRow = readonly [id: number, name: string, categoryId: number, status: Pet.PetStatus]

/**
 * The `Pet` of a row. Rows are read as arrays of column values (cheaper than
 * objects) and hold what was stored from a valid `Pet` (STRICT types and
 * CHECK constraints keep their shape): `StoreRows.pet`, without validation.
 *
 * @internal
 */
export const toPet = (row: PetRow): Pet.Pet => StoreRows.pet(row[0], row[1], row[2], row[3])
