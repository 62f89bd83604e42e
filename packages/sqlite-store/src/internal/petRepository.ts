/**
 * `PetRepository` on SQLite. Ids come from `INTEGER PRIMARY KEY
 * AUTOINCREMENT` (increasing, never reused); a listing is one range scan of
 * the primary key, or of the `(status, id)` index when filtered by status.
 * One row is read as an object, many as arrays (cheaper each way through
 * the client).
 *
 * @internal
 */
import { PetRepository } from "@animal-store/core"
import { Effect, Layer, Option } from "effect"
import { GroupCommit, rows, values } from "./groupCommit.js"
import { findByIdSql, insertPet, listStatement } from "./petSql.js"
import type { PetObject, PetRow } from "./rows.js"
import { toPet, toPetFromObject } from "./rows.js"

/** @internal */
export const make: Effect.Effect<PetRepository.PetRepositoryService, never, GroupCommit> = Effect.map(
  GroupCommit,
  (database) => ({
    insert: (pet) => database.write("Storing an animal", (connection) => insertPet(connection, pet)),
    findById: (id) =>
      database.read("Reading an animal", (connection) =>
        Effect.map(rows<PetObject>(connection, findByIdSql, id), (found) => Option.map(Option.fromNullable(found[0]), toPetFromObject))),
    list: ({ afterId = 0, limit, status }) =>
      database.read("Listing animals", (connection) =>
        Effect.map(values<PetRow>(connection, ...listStatement(status, afterId, limit)), (found) => found.map(toPet)))
  })
)

/** @internal */
export const layer: Layer.Layer<PetRepository.PetRepository, never, GroupCommit> = Layer.effect(
  PetRepository.PetRepository,
  make
)
