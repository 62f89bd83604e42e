/**
 * `PetRepository` on SQLite: ids from `INTEGER PRIMARY KEY AUTOINCREMENT`, a listing one range scan
 * (record 0007); one row is read as an object, many as arrays.
 *
 * @internal
 */
import { PetRepository } from "@animal-store/core"
import { Effect, Layer, Option } from "effect"
import { Database } from "./database.js"
import { findByIdSql, insertPet, listStatement } from "./petSql.js"
import { isPetObject, isPetRow, toPet, toPetFromObject } from "./rows.js"

/** @internal */
export const make: Effect.Effect<PetRepository.PetRepositoryService, never, Database> = Effect.map(
  Database,
  (database) => ({
    insert: (pet) => database.writeHeld("Storing an animal", (statements) => insertPet(statements, pet)),
    findById: (id) =>
      database.read("Reading an animal", (statements) =>
        Option.map(Option.fromNullable(statements.objects(isPetObject, findByIdSql, id)[0]), toPetFromObject)),
    list: ({ afterId = 0, limit, status }) =>
      database.read("Listing animals", (statements) => statements.values(isPetRow, ...listStatement(status, afterId, limit)).map(toPet))
  })
)

/** @internal */
export const layer: Layer.Layer<PetRepository.PetRepository, never, Database> = Layer.effect(
  PetRepository.PetRepository,
  make
)
