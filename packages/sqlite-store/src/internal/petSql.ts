/**
 * The SQL texts of `SqlitePetRepository`, each selecting the columns of a
 * `Pet` in the order its rows are read: id, name, category id, status.
 */
import type { Pet } from "@animal-store/core"
import { ListPetsQuery, StoreRows } from "@animal-store/core"
import type * as SqliteDatabase from "../SqliteDatabase.js"

const columns = "id, name, category_id, status"

/**
 * Stores an animal under the next id. Parameters: name, category id, status.
 * Without `RETURNING`, which collects the rows it returns in a temporary
 * table made for each run: the stored row is the values bound (STRICT types
 * and CHECK constraints take a valid `Pet`'s as they are) under the rowid
 * the insert reports (`insertPet`).
 *
 * @internal
 */
export const insertSql = "INSERT INTO pets (name, category_id, status) VALUES (?, ?, ?)"

/**
 * Stores `pet` under the next id (`insertSql`); the animal as stored.
 *
 * @internal
 */
export const insertPet = (connection: SqliteDatabase.Connection, pet: Pet.NewPet): Pet.Pet =>
  StoreRows.pet(
    Number(connection.run(insertSql, pet.name, pet.categoryId, pet.status).lastInsertRowid),
    pet.name,
    pet.categoryId,
    pet.status
  )

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
 * The texts of one listing by the number of rows it returns at most,
 * written into the text as `LIMIT n` (each made once), and its text with a
 * bound `LIMIT ?` for larger limits. SQLite takes a bound `LIMIT ?` as an
 * input of the statement's plan: binding it expires the statement, which is
 * then prepared again on every run, about as much work as reading a page of
 * 20 animals. With the limit written in, each text is prepared once and kept
 * (at most `maxWrittenLimit` of them).
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
