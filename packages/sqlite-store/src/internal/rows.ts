/**
 * Core's `Pet` from the store's rows, read as arrays of column values or as objects by column name.
 * For speed only: each `Pet` is built by a constructor on `Pet`'s prototype without validating it again;
 * rows hold what the store wrote from a valid instance (STRICT types, CHECK constraints; record 0063).
 *
 * @internal
 */
import { Pet } from "@animal-store/core"
import { SqlRow } from "@animal-store/sql-store"

/** A pet's columns, in the order of its rows. */
export const petColumns = "id, name, category_id, status"

/** A row of `petColumns`. */
export type PetRow = readonly [id: number, name: string, categoryId: number, status: Pet.PetStatus]

const isStatus = SqlRow.isLiteral(Pet.PetStatus.literals)

/** Whether `u` is a row of `petColumns` (a statement may return more columns after them). */
export const isPetRow = (u: unknown): u is PetRow =>
  Array.isArray(u) && typeof u[0] === "number" && typeof u[1] === "string" && typeof u[2] === "number" && isStatus(u[3])

/** A `Pet` of stored values: `Pet`'s fields, and `Pet`'s prototype and constructor behind its own. */
class StoredPet {
  constructor(
    readonly id: Pet.PetId,
    readonly name: string,
    readonly categoryId: Pet.CategoryId,
    readonly status: Pet.PetStatus
  ) {}
}
Object.setPrototypeOf(StoredPet.prototype, Pet.Pet.prototype)
Object.defineProperty(StoredPet.prototype, "constructor", { value: Pet.Pet, writable: true, configurable: true })

const pet = (id: number, name: string, categoryId: number, status: Pet.PetStatus): Pet.Pet =>
  new StoredPet(id as Pet.PetId, name, categoryId as Pet.CategoryId, status)

/** The `Pet` of a row of `petColumns`. */
export const toPet = (row: PetRow): Pet.Pet => pet(row[0], row[1], row[2], row[3])

/** A row of `petColumns` read as an object. */
export interface PetObject {
  readonly id: number
  readonly name: string
  readonly category_id: number
  readonly status: Pet.PetStatus
}

/** Whether `u` is a row of `petColumns` read as an object. */
export const isPetObject = (u: unknown): u is PetObject =>
  typeof u === "object" && u !== null && "id" in u && typeof u.id === "number" && "name" in u &&
  typeof u.name === "string" && "category_id" in u && typeof u.category_id === "number" && "status" in u &&
  isStatus(u.status)

/** The `Pet` of a row of `petColumns` read as an object. */
export const toPetFromObject = (row: PetObject): Pet.Pet => pet(row.id, row.name, row.category_id, row.status)
