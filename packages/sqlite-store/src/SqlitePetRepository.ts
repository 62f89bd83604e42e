/**
 * `PetRepository` on SQLite. Ids come from `INTEGER PRIMARY KEY
 * AUTOINCREMENT` (increasing, never reused); a listing is one range scan of
 * the primary key, or of the `(status, id)` index when filtered by status, so
 * its cost does not grow with the number of animals stored.
 *
 * @since 1.0.0
 */
import { Pet, PetRepository } from "@animal-store/core"
import * as SqlClient from "@effect/sql/SqlClient"
import { Effect, Layer, Option } from "effect"
import { mapStoreError } from "./internal/storeError.js"

interface PetRow {
  readonly id: number
  readonly name: string
  readonly categoryId: number
  readonly status: Pet.PetStatus
}

// Rows hold what `insert` stored (a valid `Pet`; STRICT types and CHECK
// constraints keep their shape) and `Pet` has no defaults: make the instance
// as its constructor does without validation, minus the constructor's generic
// per-call work, which was most of the cost of listing a page.
const toPet = (row: PetRow): Pet.Pet => Object.assign(Object.create(Pet.Pet.prototype) as Pet.Pet, row)

/**
 * @since 1.0.0
 * @category constructors
 */
export const make: Effect.Effect<PetRepository.PetRepositoryService, never, SqlClient.SqlClient> = Effect.map(
  SqlClient.SqlClient,
  (sql) => ({
    insert: (pet) =>
      sql<PetRow>`INSERT INTO pets (name, category_id, status) VALUES (${pet.name}, ${pet.categoryId}, ${pet.status})
        RETURNING id, name, category_id AS categoryId, status`.pipe(
        Effect.map((rows) => toPet(rows[0]!)),
        mapStoreError("Storing an animal")
      ),
    findById: (id) =>
      sql<PetRow>`SELECT id, name, category_id AS categoryId, status FROM pets WHERE id = ${id}`.pipe(
        Effect.map((rows) => Option.map(Option.fromNullable(rows[0]), toPet)),
        mapStoreError("Reading an animal")
      ),
    list: ({ afterId = 0, limit, status }) =>
      (status === undefined
        ? sql<PetRow>`SELECT id, name, category_id AS categoryId, status FROM pets
            WHERE id > ${afterId} ORDER BY id LIMIT ${limit}`
        : sql<PetRow>`SELECT id, name, category_id AS categoryId, status FROM pets
            WHERE status = ${status} AND id > ${afterId} ORDER BY id LIMIT ${limit}`).pipe(
          Effect.map((rows) => rows.map(toPet)),
          mapStoreError("Listing animals")
        )
  })
)

/**
 * @since 1.0.0
 * @category layers
 */
export const layer: Layer.Layer<PetRepository.PetRepository, never, SqlClient.SqlClient> = Layer.effect(
  PetRepository.PetRepository,
  make
)
