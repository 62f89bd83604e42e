/**
 * `PetRepository` on SQLite. Ids come from `INTEGER PRIMARY KEY
 * AUTOINCREMENT` (increasing, never reused); a listing is one range scan of
 * the primary key, or of the `(status, id)` index when filtered by status, so
 * its cost does not grow with the number of animals stored.
 *
 * @since 1.0.0
 */
import { PetRepository } from "@animal-store/core"
import { Effect, Layer, Option } from "effect"
import type { PetRow } from "./internal/petRow.js"
import { toPet } from "./internal/petRow.js"
import { findByIdSql, insertSql, listStatement } from "./internal/petSql.js"
import * as SqliteDatabase from "./SqliteDatabase.js"

/**
 * @since 1.0.0
 * @category constructors
 */
export const make: Effect.Effect<PetRepository.PetRepositoryService, never, SqliteDatabase.SqliteDatabase> = Effect.map(
  SqliteDatabase.SqliteDatabase,
  (database) => ({
    insert: (pet) =>
      database.batched(
        "Storing an animal",
        (connection) => toPet(connection.firstValues<PetRow>(insertSql, pet.name, pet.categoryId, pet.status)!)
      ),
    findById: (id) =>
      database.use(
        "Reading an animal",
        (connection) => Option.map(Option.fromNullable(connection.firstValues<PetRow>(findByIdSql, id)), toPet)
      ),
    list: ({ afterId = 0, limit, status }) =>
      database.use(
        "Listing animals",
        (connection) => connection.values<PetRow>(...listStatement(status, afterId, limit)).map(toPet)
      )
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
