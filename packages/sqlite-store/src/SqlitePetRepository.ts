/**
 * `PetRepository` on SQLite. Ids come from `INTEGER PRIMARY KEY
 * AUTOINCREMENT` (increasing, never reused); a listing is one range scan of
 * the primary key, or of the `(status, id)` index when filtered by status, so
 * its cost does not grow with the number of animals stored.
 *
 * @since 1.0.0
 */
import { Pet, PetRepository } from "@animal-store/core"
import { Effect, Layer, Option } from "effect"
import { findByIdSql, insertSql, listByStatusSql, listSql } from "./internal/petSql.js"
import * as SqliteDatabase from "./SqliteDatabase.js"

type PetRow = readonly [id: number, name: string, categoryId: number, status: Pet.PetStatus]

// Rows are read as arrays of column values (cheaper than objects). They hold
// what `insert` stored (a valid `Pet`; STRICT types and CHECK constraints keep
// their shape) and `Pet` has no defaults: make the instance as its constructor
// does without validation, minus the constructor's generic per-call work,
// which was most of the cost of listing a page.
const toPet = (row: PetRow): Pet.Pet => {
  const pet = Object.create(Pet.Pet.prototype) as { -readonly [K in keyof Pet.Pet]: Pet.Pet[K] }
  pet.id = row[0] as Pet.PetId
  pet.name = row[1]
  pet.categoryId = row[2] as Pet.CategoryId
  pet.status = row[3]
  return pet
}

/**
 * @since 1.0.0
 * @category constructors
 */
export const make: Effect.Effect<PetRepository.PetRepositoryService, never, SqliteDatabase.SqliteDatabase> = Effect.map(
  SqliteDatabase.SqliteDatabase,
  (database) => ({
    insert: (pet) =>
      database.use(
        "Storing an animal",
        (connection) => toPet(connection.firstValues<PetRow>(insertSql, pet.name, pet.categoryId, pet.status)!)
      ),
    findById: (id) =>
      database.use(
        "Reading an animal",
        (connection) => Option.map(Option.fromNullable(connection.firstValues<PetRow>(findByIdSql, id)), toPet)
      ),
    list: ({ afterId = 0, limit, status }) =>
      database.use("Listing animals", (connection) =>
        (status === undefined
          ? connection.values<PetRow>(listSql, afterId, limit)
          : connection.values<PetRow>(listByStatusSql, status, afterId, limit)).map(toPet))
  })
)

/**
 * @since 1.0.0
 * @category layers
 */
export const layer: Layer.Layer<PetRepository.PetRepository, never, SqliteDatabase.SqliteDatabase> = Layer.effect(
  PetRepository.PetRepository,
  make
)
