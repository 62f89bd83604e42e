/**
 * `PetRepository` on PostgreSQL. Ids come from an identity column (a
 * sequence: increasing, never reused, also across processes and after a
 * rolled back insert); a listing is one range scan of the primary key, or of
 * the `(status, id)` index when filtered by status.
 *
 * @since 1.0.0
 */
import { PetRepository } from "@animal-store/core"
import { Effect, Layer, Option } from "effect"
import { isPetRow, toPet } from "./internal/petRows.js"
import * as Prepared from "./internal/prepared.js"
import { mapStoreError } from "./internal/storeError.js"
import * as PostgresDatabase from "./PostgresDatabase.js"

/**
 * @since 1.0.0
 * @category constructors
 */
export const make: Effect.Effect<PetRepository.PetRepositoryService, never, PostgresDatabase.PostgresDatabase> =
  Effect.map(PostgresDatabase.PostgresDatabase, (db) => {
    const pets = db.table("pets")
    const columns = "id, name, category_id, status, name_utf8"
    const insertSql = `INSERT INTO ${pets} (name, name_utf8, category_id, status) VALUES ($1, $2, $3, $4)
      RETURNING ${columns}`
    const findByIdSql = `SELECT ${columns} FROM ${pets} WHERE id = $1`
    const listSql = `SELECT ${columns} FROM ${pets} WHERE id > $1 ORDER BY id LIMIT $2`
    const listByStatusSql = `SELECT ${columns} FROM ${pets} WHERE status = $1 AND id > $2 ORDER BY id LIMIT $3`
    const insert = Prepared.values(db, insertSql, isPetRow)
    const findById = Prepared.values(db, findByIdSql, isPetRow)
    const list = Prepared.values(db, listSql, isPetRow)
    const listByStatus = Prepared.values(db, listByStatusSql, isPetRow)
    return {
      insert: (pet) =>
        insert(
          pet.name.includes("\u0000")
            ? [pet.name.replaceAll("\u0000", "\ufffd"), Buffer.from(pet.name, "utf8"), pet.categoryId, pet.status]
            : [pet.name, null, pet.categoryId, pet.status]
        ).pipe(
          Effect.map((found) => toPet(found[0]!)),
          mapStoreError("Storing an animal")
        ),
      findById: (id) =>
        findById([id]).pipe(
          Effect.map((found) => Option.map(Option.fromNullable(found[0]), toPet)),
          mapStoreError("Reading an animal")
        ),
      list: ({ afterId = 0, limit, status }) =>
        (status === undefined
          ? list([afterId, limit])
          : listByStatus([status, afterId, limit])).pipe(
            Effect.map((found) => found.map(toPet)),
            mapStoreError("Listing animals")
          )
    }
  })

/**
 * @since 1.0.0
 * @category layers
 */
export const layer: Layer.Layer<PetRepository.PetRepository, never, PostgresDatabase.PostgresDatabase> = Layer.effect(
  PetRepository.PetRepository,
  make
)
