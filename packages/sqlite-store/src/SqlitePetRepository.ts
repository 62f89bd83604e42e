/**
 * `PetRepository` on SQLite. Ids come from `INTEGER PRIMARY KEY
 * AUTOINCREMENT` (increasing, never reused); a listing is one range scan of
 * the primary key, or of the `(status, id)` index when filtered by status, so
 * its cost does not grow with the number of animals stored.
 *
 * An animal never changes once stored and no operation deletes one, so the
 * animals found by id are kept in memory (the last `foundPetsMax` of them)
 * and a lookup of a kept one reads nothing: an animal is kept once the
 * transaction it was read in has committed, so one whose insert was rolled
 * back (its id then goes to the next insert) is never kept. Rows written by
 * hand through the store's `SqlClient` or by another program are not seen by
 * the kept animals.
 *
 * @since 1.0.0
 */
import type { Pet } from "@animal-store/core"
import { PetRepository } from "@animal-store/core"
import { Effect, Exit, Layer, Option } from "effect"
import type { PetRow } from "./internal/petRow.js"
import { toPet } from "./internal/petRow.js"
import { findByIdSql, insertPet, listStatement } from "./internal/petSql.js"
import * as SqliteDatabase from "./SqliteDatabase.js"

/**
 * The most animals kept in memory by id; past it, the one kept longest is
 * forgotten first (about 3 MB for 10,000 animals with short names).
 *
 * @since 1.0.0
 * @category constants
 */
export const foundPetsMax = 10_000

/** The animals found by id (the last `foundPetsMax`), each as the answer of its lookup. */
const makeFoundPets = () => {
  const found = new Map<number, Exit.Exit<Option.Option<Pet.Pet>>>()
  return {
    get: (id: Pet.PetId): Exit.Exit<Option.Option<Pet.Pet>> | undefined => found.get(id),
    keep: (pet: Pet.Pet): void => {
      if (found.size >= foundPetsMax && !found.has(pet.id)) found.delete(found.keys().next().value!)
      found.set(pet.id, Exit.succeed(Option.some(pet)))
    }
  }
}

/**
 * @since 1.0.0
 * @category constructors
 */
export const make: Effect.Effect<PetRepository.PetRepositoryService, never, SqliteDatabase.SqliteDatabase> = Effect.map(
  SqliteDatabase.SqliteDatabase,
  (database) => {
    const found = makeFoundPets()
    const read = (id: Pet.PetId) =>
      database.use("Reading an animal", (connection) => {
        const row = connection.firstValues<PetRow>(findByIdSql, id)
        if (row === undefined) return Option.none()
        const pet = toPet(row)
        connection.afterCommit(() => found.keep(pet))
        return Option.some(pet)
      })
    return {
      insert: (pet) =>
        database.batched(
          "Storing an animal",
          (connection) => insertPet(connection, pet)
        ),
      findById: (id) => found.get(id) ?? read(id),
      list: ({ afterId = 0, limit, status }) =>
        database.use(
          "Listing animals",
          (connection) => connection.values<PetRow>(...listStatement(status, afterId, limit)).map(toPet)
        )
    }
  }
)

/**
 * @since 1.0.0
 * @category layers
 */
export const layer: Layer.Layer<PetRepository.PetRepository, never, SqliteDatabase.SqliteDatabase> = Layer.effect(
  PetRepository.PetRepository,
  make
)
