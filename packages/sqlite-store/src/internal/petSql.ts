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
 * A page of animals after a cursor: a range search of the primary key.
 * Parameters: after id, limit.
 *
 * @internal
 */
export const listSql = `SELECT ${columns} FROM pets WHERE id > ? ORDER BY id LIMIT ?`

/**
 * A page of animals of one status after a cursor: a range search of the
 * `pets_status_id (status, id)` index. Parameters: status, after id, limit.
 *
 * @internal
 */
export const listByStatusSql = `SELECT ${columns} FROM pets WHERE status = ? AND id > ? ORDER BY id LIMIT ?`
