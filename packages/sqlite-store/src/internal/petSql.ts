/**
 * The statements of the pet repository, each selecting the columns of a
 * `Pet` in the order its rows are read (`rows.petColumns`).
 *
 * @internal
 */
import type { Pet } from "@animal-store/core"
import { ListPetsQuery } from "@animal-store/core"
import type { Statements } from "./database.js"
import { petColumns as columns, toPet } from "./rows.js"

/**
 * Stores an animal under the next id. Parameters: name, category id, status.
 *
 * @internal
 */
export const insertSql = "INSERT INTO pets (name, category_id, status) VALUES (?, ?, ?)"

/**
 * Stores `pet` under the next id (`insertSql`); the animal as stored.
 *
 * @internal
 */
export const insertPet = (statements: Statements, pet: Pet.NewPet): Pet.Pet =>
  toPet([Number(statements.run(insertSql, pet.name, pet.categoryId, pet.status).lastInsertRowid), pet.name, pet.categoryId, pet.status])

/**
 * The animal with an id. Parameter: id.
 *
 * @internal
 */
export const findByIdSql = `SELECT ${columns} FROM pets WHERE id = ?`

/**
 * The largest limit written into a listing's text: one more than the largest
 * page (`ListPetsQuery.maxLimit`), so every listing `PetOperations` makes.
 */
const maxWrittenLimit = ListPetsQuery.maxLimit + 1

/**
 * A listing's texts with its limit written in (`LIMIT 21`), up to
 * `maxWrittenLimit`, and with `LIMIT ?` beyond: SQLite prepares a statement
 * again on every run when a bound `LIMIT ?` changes its plan.
 */
const byLimit = (text: (limit: string) => string) => {
  const texts: Array<string> = []
  const bound = text("?")
  const written: ReadonlyArray<number> = []
  return (limit: number): readonly [sql: string, limit: ReadonlyArray<number>] => {
    if (!Number.isSafeInteger(limit) || limit < 0) throw new RangeError(`Not a row limit: ${limit}`)
    if (limit > maxWrittenLimit) return [bound, [limit]]
    return [texts[limit] ??= text(String(limit)), written]
  }
}

const listText = byLimit((limit) => `SELECT ${columns} FROM pets WHERE id > ? ORDER BY id LIMIT ${limit}`)
const listByStatusText = byLimit((limit) =>
  `SELECT ${columns} FROM pets WHERE status = ? AND id > ? ORDER BY id LIMIT ${limit}`
)

/**
 * A page of at most `limit` animals after `afterId` (of `status` when
 * given), as a statement and its parameters: a range search of the primary
 * key, or of the `pets_status_id (status, id)` index by status.
 *
 * @internal
 */
export const listStatement = (
  status: Pet.PetStatus | undefined,
  afterId: number,
  limit: number
): readonly [sql: string, ...params: Array<string | number>] => {
  if (status === undefined) {
    const [sql, bound] = listText(limit)
    return [sql, afterId, ...bound]
  }
  const [sql, bound] = listByStatusText(limit)
  return [sql, status, afterId, ...bound]
}
