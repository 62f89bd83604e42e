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

const started = (filename: string, intervalMillis: number) =>
  Effect.acquireRelease(
    Effect.sync(() => WalCheckpointer.start(filename, "NORMAL", intervalMillis)),
    (stop) => Effect.promise(stop)
  )

/** Waits, for at most 10 s, until the file `filename` is `size` bytes long; its size then. */
const sizeReaches = (filename: string, size: number) =>
  Effect.gen(function*() {
    const deadline = Date.now() + 10_000
    while (Fs.statSync(filename).size !== size && Date.now() < deadline) {
      yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 10)))
    }
    return Fs.statSync(filename).size
  })

/** The size of the database file once every page of the WAL is copied into it. */
const checkpointedSize = (db: ReturnType<typeof open>) =>
  (db.prepare("SELECT page_count * page_size AS size FROM pragma_page_count(), pragma_page_size()").get() as {
    readonly size: number
  }).size

describe("the WAL checkpointer", () => {
  it.scoped("copies the whole WAL into the database file within its interval, on a connection of its own", () =>
    Effect.gen(function*() {
      const { db, filename } = yield* databaseWith(2_000)
      const whole = checkpointedSize(db)
      expect(Fs.statSync(filename).size).toBeLessThan(whole - 100 * 4096)
      yield* started(filename, 20)
      expect(yield* sizeReaches(filename, whole)).toBe(whole)
    }))

  it.scoped("does not checkpoint before its interval", () =>
    Effect.gen(function*() {
      const { filename } = yield* databaseWith(2_000)
      const before = Fs.statSync(filename).size
      yield* started(filename, 3_600_000)
      yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 300)))
      expect(Fs.statSync(filename).size).toBe(before)
    }))

  it.scoped("stopped, it closes its connection: the store's, closing last, removes the WAL", () =>
    Effect.gen(function*() {
      const { db, filename } = yield* databaseWith(2_000)
      const stop = WalCheckpointer.start(filename, "NORMAL", 20)
      // Its connection is open once it has checkpointed.
      expect(yield* sizeReaches(filename, checkpointedSize(db))).toBe(checkpointedSize(db))
      yield* Effect.promise(stop)
      yield* Effect.promise(stop)
      db.close()
      expect(Fs.existsSync(`${filename}-wal`)).toBe(false)
    }))
})
