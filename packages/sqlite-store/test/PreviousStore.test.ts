/**
 * A lost database is not made again in silence: where a previous store's
 * marker, `-wal` or `-shm` is left without its database file, opening fails
 * unless `create` asks for a new, empty store.
 */
import { Pet, PetRepository } from "@animal-store/core"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { SqliteStore } from "../src/index.js"
import { tempFolder } from "./internal/files.js"

const newPet: Pet.NewPet = { name: "Rex", categoryId: Pet.CategoryId.make(1), status: "available" }

/** The names of the animals stored at `options`, after inserting `insert` ones. */
const names = (options: SqliteStore.Options, insert: ReadonlyArray<string> = []) =>
  Effect.gen(function*() {
    const pets = yield* PetRepository.PetRepository
    for (const name of insert) yield* pets.insert({ ...newPet, name })
    return (yield* pets.list({ limit: 100 })).map((pet) => pet.name)
  }).pipe(Effect.provide(SqliteStore.layer(options)))

const openError = (options: SqliteStore.Options) =>
  Layer.build(SqliteStore.layer(options)).pipe(Effect.scoped, Effect.flip)

const filesIn = (folder: string) => Fs.readdirSync(folder).sort()

describe("a SQLite store whose database file is gone", () => {
  it.scoped("a new folder gets its database and the marker beside it; a database kept without a marker gets one", () =>
    Effect.gen(function*() {
      const folder = yield* tempFolder
      const filename = Path.join(folder, "data", "store.db")
      expect(yield* names({ filename }, ["Rex"])).toEqual(["Rex"])
      expect(filesIn(Path.dirname(filename))).toEqual(["store.db", "store.db-created"])
      expect(Fs.readFileSync(`${filename}-created`, "utf8")).toMatch(/store\.db/)

      Fs.rmSync(`${filename}-created`)
      expect(yield* names({ filename })).toEqual(["Rex"])
      expect(filesIn(Path.dirname(filename))).toEqual(["store.db", "store.db-created"])
    }))

  it.scoped("is refused where its marker is left, naming both files and create; with create a new, empty store starts", () =>
    Effect.gen(function*() {
      const folder = yield* tempFolder
      const filename = Path.join(folder, "store.db")
      yield* names({ filename }, ["Rex"])
      Fs.rmSync(filename)

      const error = yield* openError({ filename })
      expect(error.reason).toBe("Unavailable")
      expect(error.message).toBe(
        `the SQLite database "${filename}" is gone, but "${filename}-created" of a previous store is still there: ` +
          "restore the database, or open it with create (animal-store serve --create) to start a new, empty store"
      )
      expect(filesIn(folder)).toEqual(["store.db-created"])
      // Refused again: the refusal created nothing.
      expect((yield* openError({ filename, create: false })).message).toBe(error.message)

      expect(yield* names({ filename, create: true }, ["Tom"])).toEqual(["Tom"])
      expect(yield* names({ filename })).toEqual(["Tom"])
    }))

  it.scoped("is refused where the WAL of a crashed store is left; with create a new, empty store starts", () =>
    Effect.gen(function*() {
      const folder = yield* tempFolder
      const filename = Path.join(folder, "store.db")
      // The WAL and shared-memory files of a store still open, as a crash leaves them.
      yield* Effect.gen(function*() {
        const pets = yield* PetRepository.PetRepository
        yield* pets.insert(newPet)
        Fs.copyFileSync(`${filename}-wal`, Path.join(folder, "wal"))
        Fs.copyFileSync(`${filename}-shm`, Path.join(folder, "shm"))
      }).pipe(Effect.provide(SqliteStore.layer({ filename })), Effect.scoped)
      Fs.rmSync(filename)
      Fs.rmSync(`${filename}-created`)
      Fs.renameSync(Path.join(folder, "wal"), `${filename}-wal`)
      Fs.renameSync(Path.join(folder, "shm"), `${filename}-shm`)

      const error = yield* openError({ filename })
      expect(error.message).toContain(`but "${filename}-wal", "${filename}-shm" of a previous store is still there`)
      expect(filesIn(folder)).toEqual(["store.db-shm", "store.db-wal"])

      expect(yield* names({ filename, create: true })).toEqual([])
      expect(filesIn(folder)).toEqual(["store.db", "store.db-created"])
    }))
})
