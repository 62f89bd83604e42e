import { AnimalStore, AnimalStoreError } from "@animal-store/core"
import { afterEach, describe, expect, it } from "vitest"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { SqliteStore } from "../src/index.js"

const folders: Array<string> = []
afterEach(() => {
  for (const folder of folders.splice(0)) Fs.rmSync(folder, { recursive: true, force: true })
})

const opened = async () => {
  const folder = Fs.mkdtempSync(Path.join(Os.tmpdir(), "animal-store-facade-"))
  folders.push(folder)
  const filename = Path.join(folder, "store.db")
  const store = await AnimalStore.open({ store: SqliteStore.layer({ filename }) })
  const { secret } = await store.keys.issue({ plan: "enterprise", limits: { perMinute: 1000, perDay: 10_000 } })
  return { filename, store, request: { credential: secret, clientAddress: "192.0.2.10" } }
}

const walBytes = (filename: string) => Fs.statSync(`${filename}-wal`).size

describe("the Promise facade on SQLite", () => {
  it("calls made at once share one commit, and each is given once it is durable", async () => {
    const { filename, request, store } = await opened()
    try {
      const rex = await store.createPet({ name: "Rex", categoryId: 1 })
      const before = walBytes(filename)
      const read = await Promise.all(Array.from({ length: 64 }, () => store.guarded.getPet(request, rex.id)))
      expect(read.map((result) => result.value.name)).toEqual(Array(64).fill("Rex"))
      expect(read.map((result) => result.meta.rateLimit?.reported.remaining).sort((a, b) => b! - a!))
        .toEqual(Array.from({ length: 64 }, (_, i) => 999 - i))
      // 64 counts, one commit: a commit each would append at least 64 pages to the WAL.
      expect(walBytes(filename) - before).toBeLessThan(8 * (4096 + 24))
    } finally {
      await store.close()
    }
  })

  it("a call whose commit fails rejects with service_unavailable, and its count is not kept", async () => {
    const { filename, request, store } = await opened()
    try {
      const rex = await store.createPet({ name: "Rex", categoryId: 1 })
      expect((await store.guarded.getPet(request, rex.id)).meta.rateLimit?.reported.remaining).toBe(999)
      const lost = store.guarded.getPet(request, rex.id).then(() => undefined, (error: unknown) => error)
      // Before its commit, the database file is moved away: the commit is refused, the call not given.
      Fs.renameSync(filename, `${filename}.moved`)
      const error = await lost
      expect(error).toBeInstanceOf(AnimalStoreError.AnimalStoreError)
      expect(error).toMatchObject({ code: "service_unavailable", status: 503 })
      Fs.renameSync(`${filename}.moved`, filename)
      expect((await store.guarded.getPet(request, rex.id)).meta.rateLimit?.reported.remaining).toBe(998)
    } finally {
      await store.close()
    }
  })
})
