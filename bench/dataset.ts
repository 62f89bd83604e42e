/**
 * The animals every benchmark runs on, and the fast ways to put them in a
 * store. A SQLite file is created and migrated by the store itself (the
 * standalone server of the build under test, or `SqliteStore.layer` in
 * process), then filled with raw better-sqlite3 in one transaction: the
 * `INSERT` of the reference servers (`rawSqlite.ts`), so `AUTOINCREMENT` and
 * every index end up as after real inserts. The memory store is filled
 * through its `PetRepository` port.
 */
import type { Pet } from "@animal-store/core"
import { PetRepository } from "@animal-store/core"
import { SqliteStore } from "@animal-store/sqlite-store"
import { Effect, Layer } from "effect"
import { openRaw } from "./rawSqlite.js"
import { freePort, serveCommand, start, stop, waitReady } from "./serverProcess.js"

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

/** Adds `count` animals (`newPet(1)` on) to the `pets` table of the store's SQLite file at `filename`. */
export const insertPets = (filename: string, count: number): void => {
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

/** Creates (and migrates) a SQLite store at `filename` in process (`SqliteStore.layer`) and fills it with `count` animals. */
export const fillSqlite = async (filename: string, count: number): Promise<void> => {
  await Effect.runPromise(Effect.scoped(Layer.build(SqliteStore.layer({ filename }))))
  insertPets(filename, count)
}

/**
 * Creates the SQLite store at `filename` with the standalone server of the
 * checkout at `checkout` (its bundled bin: it migrates the file as it starts,
 * and is stopped once it answers), then fills it with `count` animals. Each
 * build thus fills a file of its own schema.
 */
export const fillThroughServer = async (checkout: string, filename: string, count: number): Promise<void> => {
  const port = await freePort()
  const server = start(serveCommand(port, `sqlite:${filename}`, [], `${checkout}/packages/server/dist/cli/animal-store.js`), {
    cwd: checkout
  })
  try {
    await waitReady(`The server of ${checkout}`, server, `http://127.0.0.1:${port}/v1/pets`)
  } finally {
    await stop(server)
  }
  insertPets(filename, count)
}

/** Checks that the server at `origin` serves the `count` animals of `insertPets` (the last one, and none after it). */
export const checkServed = async (name: string, origin: string, key: string, count: number): Promise<void> => {
  const headers = { authorization: `Bearer ${key}` }
  const last = await fetch(`${origin}/v1/pets/${count}`, { headers })
  const body = await last.text()
  if (last.status !== 200 || !body.includes(`"pet ${count}"`)) {
    throw new Error(`${name} does not serve animal ${count}: ${last.status} ${body.slice(0, 200)}`)
  }
  const after = await fetch(`${origin}/v1/pets/${count + 1}`, { headers })
  await after.arrayBuffer()
  if (after.status !== 404) throw new Error(`${name} answers ${after.status} for animal ${count + 1}, not 404`)
}

/** Fills a memory `PetRepository` with `count` animals through `insert`. */
export const fillRepository = (count: number): Effect.Effect<void, unknown, PetRepository.PetRepository> =>
  Effect.flatMap(PetRepository.PetRepository, (repository) =>
    Effect.forEach(
      { [Symbol.iterator]: function*() { for (let i = 1; i <= count; i++) yield i } },
      (i) => repository.insert(newPet(i)),
      { discard: true }
    ))
