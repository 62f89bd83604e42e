import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as Fs from "node:fs"
import * as Path from "node:path"
import * as WalCheckpointer from "../src/internal/walCheckpointer.js"
import { open, tempFolder } from "./internal/files.js"

/** A database in WAL mode whose own connection never checkpoints, with a table of `rows` rows written. */
const databaseWith = (rows: number) =>
  Effect.gen(function*() {
    const filename = Path.join(yield* tempFolder, "store.db")
    const db = yield* Effect.acquireRelease(Effect.sync(() => open(filename)), (db) => Effect.sync(() => db.close()))
    db.pragma("journal_mode = WAL")
    db.pragma("wal_autocheckpoint = 0")
    db.exec("CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT NOT NULL)")
    const insert = db.prepare("INSERT INTO t (v) VALUES (?)")
    db.transaction(() => {
      for (let n = 0; n < rows; n++) insert.run("x".repeat(200))
    }).immediate()
    return { db, filename }
  })

const started = (filename: string, intervalMillis?: number) =>
  Effect.acquireRelease(
    Effect.sync(() => WalCheckpointer.start(filename, "NORMAL", intervalMillis)),
    (checkpointer) => Effect.promise(checkpointer.stop)
  )

describe("the WAL checkpointer", () => {
  it.scoped("copies the whole WAL into the database file, on a connection of its own", () =>
    Effect.gen(function*() {
      const { filename } = yield* databaseWith(2_000)
      const before = Fs.statSync(filename).size
      const checkpointer = yield* started(filename, 3_600_000)
      const result = yield* Effect.promise(checkpointer.checkpoint)
      expect(result.busy).toBe(0)
      expect(result.log).toBeGreaterThan(50)
      expect(result.checkpointed).toBe(result.log)
      expect(Fs.statSync(filename).size).toBeGreaterThan(before + 100 * 4096)
    }))

  it.scoped("checkpoints within its interval", () =>
    Effect.gen(function*() {
      const { filename } = yield* databaseWith(2_000)
      const before = Fs.statSync(filename).size
      yield* started(filename, 20)
      const deadline = Date.now() + 10_000
      while (Fs.statSync(filename).size === before && Date.now() < deadline) {
        yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 10)))
      }
      expect(Fs.statSync(filename).size).toBeGreaterThan(before)
    }))

  it.scoped("stopped, it closes its connection: the store's, closing last, removes the WAL", () =>
    Effect.gen(function*() {
      const { db, filename } = yield* databaseWith(10)
      const checkpointer = WalCheckpointer.start(filename, "NORMAL", 3_600_000)
      yield* Effect.promise(checkpointer.checkpoint)
      yield* Effect.promise(checkpointer.stop)
      db.close()
      expect(Fs.existsSync(`${filename}-wal`)).toBe(false)
      yield* Effect.promise(() => expect(checkpointer.checkpoint()).rejects.toThrow("stopped"))
    }))
})
