/**
 * The animals every benchmark runs on, and the fast ways to put them in a
 * store: the SQLite file is created and migrated by the store itself, then
 * filled with raw better-sqlite3 in one transaction (the same `INSERT` the
 * repository runs, so `AUTOINCREMENT` and every index end up as after real
 * inserts); the memory store is filled through its own `PetRepository.insert`.
 */
import type { Pet } from "@animal-store/core"
import { PetRepository } from "@animal-store/core"
import { SqliteStore } from "@animal-store/sqlite-store"
import { Effect } from "effect"
import { openRaw } from "./rawSqlite.js"

export const statuses: ReadonlyArray<Pet.PetStatus> = ["available", "pending", "sold"]

/** The `i`-th animal (from 1): deterministic, statuses spread evenly but not in turn. */
export const newPet = (i: number): Pet.NewPet => ({
  name: `pet ${i}`,
  categoryId: (1 + (i % 50)) as Pet.CategoryId,
  status: statuses[(Math.imul(i, 2654435761) >>> 0) % 3]!
})

/** A small seeded generator of numbers in [0, 1), so every run asks the same questions. */
export const random = (seed: number) => (): number => {
  seed = (Math.imul(seed, 1103515245) + 12345) >>> 0
  return seed / 2 ** 32
}

/** Creates (and migrates) a SQLite store at `filename` and fills it with `count` animals. */
export const fillSqlite = async (filename: string, count: number): Promise<void> => {
  await Effect.runPromise(Effect.scoped(Effect.asVoid(SqliteStore.makeClient({ filename }))))
  const db = openRaw(filename)
  try {
    db.pragma("synchronous = OFF")
    const insert = db.prepare("INSERT INTO pets (name, category_id, status) VALUES (?, ?, ?)")
    db.transaction(() => {
      for (let i = 1; i <= count; i++) {
        const pet = newPet(i)
        insert.run(pet.name, pet.categoryId, pet.status)
      }
    })()
    db.pragma("wal_checkpoint(TRUNCATE)")
  } finally {
    db.close()
  }
}

/** Fills a memory `PetRepository` with `count` animals through `insert`. */
export const fillRepository = (count: number): Effect.Effect<void, never, PetRepository.PetRepository> =>
  Effect.flatMap(PetRepository.PetRepository, (repository) =>
    Effect.sync(() => {
      for (let i = 1; i <= count; i++) {
        const exit = Effect.runSyncExit(repository.insert(newPet(i)))
        if (exit._tag === "Failure") throw new Error(`Filling the store failed at ${i}`)
      }
    }))
