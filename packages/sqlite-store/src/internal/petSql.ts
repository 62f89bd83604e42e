/**
 * The SQL texts of `SqlitePetRepository`, each selecting the columns of a
 * `Pet` in the order its rows are read: id, name, category id, status.
 */

const columns = "id, name, category_id, status"

/**
 * Stores an animal under the next id and returns its row. Parameters: name,
 * category id, status.
 *
 * @internal
 */
export const insertSql = `INSERT INTO pets (name, category_id, status) VALUES (?, ?, ?) RETURNING ${columns}`

/**
 * The animal with an id. Parameter: id.
 *
 * @internal
 */
export const findByIdSql = `SELECT ${columns} FROM pets WHERE id = ?`

/**
 * The texts of one statement by the number of rows it returns at most,
 * written into the text as `LIMIT n`, each made once. SQLite takes a bound
 * `LIMIT ?` as an input of the statement's plan: binding it expires the
 * statement, which is then prepared again on every run, about as much work
 * as reading a page of 20 animals. With the limit written in, each text is
 * prepared once and kept (a listing has at most 101 rows: at most 101 texts).
 */
const byLimit = (text: (limit: number) => string) => {
  const texts = new Map<number, string>()
  return (limit: number): string => {
    let sql = texts.get(limit)
    if (sql === undefined) {
      if (!Number.isSafeInteger(limit) || limit < 0) throw new RangeError(`Not a row limit: ${limit}`)
      sql = text(limit)
      texts.set(limit, sql)
    }
    return sql
  }
}

/**
 * A page of at most `limit` animals after a cursor: a range search of the
 * primary key. Parameter: after id.
 *
 * @internal
 */
export const listSql = byLimit((limit) => `SELECT ${columns} FROM pets WHERE id > ? ORDER BY id LIMIT ${limit}`)

/**
 * A page of at most `limit` animals of one status after a cursor: a range
 * search of the `pets_status_id (status, id)` index. Parameters: status,
 * after id.
 *
 * @internal
 */
export const listByStatusSql = byLimit((limit) =>
  `SELECT ${columns} FROM pets WHERE status = ? AND id > ? ORDER BY id LIMIT ${limit}`
)
