import { describe, expect, it } from "@effect/vitest"
import { Deferred, Effect, Exit } from "effect"
import * as Fs from "node:fs"
import * as Path from "node:path"
import * as WalFlusher from "../src/internal/walFlusher.js"
import { tempFolder } from "./internal/files.js"

/** How many descriptors of this process are open on `path` (Linux). */
const descriptorsOf = (path: string): number =>
  Fs.readdirSync("/proc/self/fd").filter((fd) => {
    try {
      return Fs.readlinkSync(`/proc/self/fd/${fd}`) === path
    } catch {
      return false
    }
  }).length

const flushed = (flusher: WalFlusher.WalFlusher) => Effect.async<void>((resume) => flusher.flush(() => resume(Effect.void)))

describe("the WAL flusher", () => {
  it.scoped("opens the WAL once SQLite has made it, flushes it, and closes it when stopped", () =>
    Effect.gen(function*() {
      const wal = Path.join(yield* tempFolder, "store.db-wal")
      const flusher = WalFlusher.start(wal, 3_600_000)
      yield* flushed(flusher)
      expect(flusher.isOpen()).toBe(false)
      Fs.writeFileSync(wal, "frames")
      yield* flushed(flusher)
      expect(flusher.isOpen()).toBe(true)
      expect(descriptorsOf(wal)).toBe(1)
      flusher.stop()
      expect(flusher.isOpen()).toBe(false)
      expect(descriptorsOf(wal)).toBe(0)
    }))

  it.scoped("stopped while a flush runs, it closes the WAL when the flush ends, and flushes no more", () =>
    Effect.gen(function*() {
      const wal = Path.join(yield* tempFolder, "store.db-wal")
      Fs.writeFileSync(wal, "frames")
      const flusher = WalFlusher.start(wal, 3_600_000)
      const ended = yield* Deferred.make<void>()
      flusher.flush(() => Deferred.unsafeDone(ended, Exit.void))
      flusher.stop()
      expect(descriptorsOf(wal)).toBe(1)
      yield* Deferred.await(ended)
      expect(descriptorsOf(wal)).toBe(0)
      yield* flushed(flusher)
      expect(flusher.isOpen()).toBe(false)
      expect(descriptorsOf(wal)).toBe(0)
    }))
})
