/**
 * For speed only: a `Pet` of a row built by a constructor of one shape on `Pet`'s prototype,
 * without validating it again (record 0058); column types and CHECK constraints keep its shape.
 *
 * @internal
 */
import { Pet } from "@animal-store/core"
import { SqlRow } from "@animal-store/sql-store"

/** A row of the pets table, as `pg` gives it (`bigint` columns as strings). @internal */
export type PetRow = readonly [id: string, name: string, categoryId: string, status: Pet.PetStatus, nameUtf8: Uint8Array | null]

const isStatus = SqlRow.isLiteral(Pet.PetStatus.literals)

/** Whether `u` is a row of the pets table. @internal */
export const isPetRow = (u: unknown): u is PetRow =>
  Array.isArray(u) && typeof u[0] === "string" && typeof u[1] === "string" && typeof u[2] === "string" &&
  isStatus(u[3]) && (u[4] === null || u[4] instanceof Uint8Array)

/** Its instances are `Pet`s: `Pet`'s fields, and `Pet`'s prototype and constructor behind its own. */
class StoredPet {
  readonly id: Pet.PetId
  readonly name: string
  readonly categoryId: Pet.CategoryId
  readonly status: Pet.PetStatus
  constructor(row: PetRow) {
    this.id = Number(row[0]) as Pet.PetId
    this.name = row[4] === null ? row[1] : Buffer.from(row[4]).toString("utf8")
    this.categoryId = Number(row[2]) as Pet.CategoryId
    this.status = row[3]
  }
}
Object.setPrototypeOf(StoredPet.prototype, Pet.Pet.prototype)
Object.defineProperty(StoredPet.prototype, "constructor", { value: Pet.Pet, writable: true, configurable: true })

/** The `Pet` of a row, valid as stored. @internal */
export const toPet = (row: PetRow): Pet.Pet => new StoredPet(row)
