import { Pet, PetRepository, RateLimitStore, StoreError } from "@animal-store/core"
import { describe, expect, it } from "@effect/vitest"
import * as SqliteClient from "@effect/sql-sqlite-node/SqliteClient"
import { Effect, Layer, Logger, Option } from "effect"
import * as ChildProcess from "node:child_process"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { SqliteStore } from "../src/index.js"
import * as FileGuard from "../src/internal/fileGuard.js"
import { tempFolder } from "./internal/files.js"

const newPet: Pet.NewPet = { name: "Rex", categoryId: Pet.CategoryId.make(1), status: "available" }

/** The messages logged at level ERROR, in order. */
const errorLog = () => {
  const lines: Array<string> = []
  const logger = Logger.make(({ logLevel, message }) => {
    if (logLevel._tag === "Error") lines.push(String(Array.isArray(message) ? message[0] : message))
  })
  return { lines, layer: Logger.replace(Logger.defaultLogger, logger) }
}

/** Every port and the file guard of a store on a new file, the logger of `log`. */
const opened = (log: ReturnType<typeof errorLog>) =>
  Effect.gen(function*() {
    const filename = Path.join(yield* tempFolder, "store.db")
    const context = yield* Layer.build(
      Layer.provideMerge(SqliteStore.layerPorts, SqliteStore.layerClient({ filename })).pipe(Layer.provide(log.layer))
    )
    const guard = FileGuard.forClient(Effect.runSync(Effect.provide(SqliteClient.SqliteClient, context)))
    const pets = Effect.runSync(Effect.provide(PetRepository.PetRepository, context))
    const limits = Effect.runSync(Effect.provide(RateLimitStore.RateLimitStore, context))
    return { filename, guard, pets, limits }
  })

/** Counts one request of `subject`: how many it has counted this minute. */
const count = (limits: RateLimitStore.RateLimitStoreService, subject: string) =>
  limits.modify(subject, (state) => {
    const next = { minuteStart: 0, minuteCount: (state?.minuteCount ?? 0) + 1, dayStart: 0, dayCount: 0, refusedCount: 0, bannedUntil: 0, previousMinuteCount: 0 }
    return [next.minuteCount, next] as const
  })

const refusal = (exit: Effect.Effect<unknown, StoreError.StoreError>) =>
  Effect.map(Effect.flip(exit), (error) => ({ reason: error.reason, changed: FileGuard.isWriteFault(error), message: error.message }))

describe("the file guard", () => {
  it.scoped("refuses writes while the database file is moved away, logs it once, keeps reads, and accepts writes once it is back", () =>
    Effect.gen(function*() {
      const log = errorLog()
      const { filename, guard, limits, pets } = yield* opened(log)
      const rex = yield* pets.insert(newPet)
      expect(yield* count(limits, "a")).toBe(1)
      yield* guard.check

      Fs.renameSync(filename, `${filename}.moved`)
      const refused = yield* refusal(pets.insert({ ...newPet, name: "Tom" }))
      expect(refused).toEqual({ reason: "Unavailable", changed: true, message: expect.stringContaining("no longer the file") })
      yield* refusal(pets.insert({ ...newPet, name: "Kit" }))
      expect(Option.map(yield* pets.findById(rex.id), (pet) => pet.name)).toEqual(Option.some("Rex"))
      expect((yield* pets.list({ limit: 10 })).map((pet) => pet.name)).toEqual(["Rex"])
      // Counted in memory while the file cannot be written.
      expect(yield* count(limits, "a")).toBe(2)
      expect(yield* count(limits, "a")).toBe(3)
      expect((yield* Effect.flip(guard.check)).reason).toBe("Unavailable")
      expect(log.lines.filter((line) => line.includes("writes refused"))).toHaveLength(1)

      Fs.renameSync(`${filename}.moved`, filename)
      yield* guard.check
      expect((yield* pets.insert({ ...newPet, name: "Max" })).name).toBe("Max")
      expect((yield* pets.list({ limit: 10 })).map((pet) => pet.name)).toEqual(["Rex", "Max"])
      expect(yield* count(limits, "a")).toBe(2)
      expect(log.lines).toHaveLength(1)
    }))

  it.scoped("refuses writes once the database file is replaced by a copy, or its WAL deleted", () =>
    Effect.gen(function*() {
      const log = errorLog()
      const { filename, guard, pets } = yield* opened(log)
      yield* pets.insert(newPet)
      Fs.linkSync(filename, `${filename}.kept`)
      Fs.copyFileSync(filename, `${filename}.copy`)
      Fs.renameSync(`${filename}.copy`, filename)
      expect((yield* refusal(pets.insert(newPet))).changed).toBe(true)
      Fs.renameSync(`${filename}.kept`, filename)
      yield* pets.insert(newPet)

      Fs.rmSync(`${filename}-wal`)
      const refused = yield* refusal(pets.insert(newPet))
      expect(refused).toEqual({ reason: "Unavailable", changed: true, message: expect.stringContaining("WAL file") })
      expect((yield* Effect.flip(guard.check)).message).toContain("WAL file")
      expect(log.lines.filter((line) => line.includes("writes refused"))).toHaveLength(2)
    }))

  it.scoped("refuses to open a database whose -shm file cannot be written", () =>
    Effect.gen(function*() {
      const filename = Path.join(yield* tempFolder, "store.db")
      const shm = `${filename}-shm`
      Fs.writeFileSync(shm, Buffer.alloc(32 * 1024))
      ChildProcess.execFileSync("chattr", ["+i", shm])
      yield* Effect.addFinalizer(() => Effect.sync(() => ChildProcess.execFileSync("chattr", ["-i", shm])))
      const error = yield* Layer.build(SqliteStore.layer({ filename })).pipe(Effect.scoped, Effect.flip)
      expect(error.reason).toBe("ReadOnly")
      expect(error.message).toContain(`"${shm}"`)
      expect(error.message).toContain("cannot be written (EPERM)")
      expect(error.message).not.toContain("\n")
    }))
})
