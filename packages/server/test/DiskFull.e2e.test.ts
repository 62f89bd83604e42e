/**
 * A full disk under a served SQLite file (a small tmpfs the test mounts:
 * needs root): writes get 503 with `Retry-After`, reads keep working, the
 * fault is logged once, writes succeed again once space returns, and every
 * acknowledged animal is there after a restart.
 */
import { describe, expect, it } from "@effect/vitest"
import * as ChildProcess from "node:child_process"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { startServe } from "./support/CliProcess.js"
import { createPet, env, eventually, expectUnavailable, get, logged, names, stop } from "./support/storeFaults.js"

const fullDisk = "SQLite store: writes fail until space returns"

/** Writes `file` until the file system refuses with ENOSPC. */
const fill = (file: string) => {
  const fd = Fs.openSync(file, "w")
  try {
    for (const size of [64 * 1024, 4 * 1024, 512]) {
      const chunk = Buffer.alloc(size, 1)
      for (;;) {
        try {
          Fs.writeSync(fd, chunk)
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code === "ENOSPC") break
          throw error
        }
      }
    }
  } finally {
    Fs.closeSync(fd)
  }
}

describe("a full disk under the SQLite store", () => {
  it("refuses writes with 503, keeps reads, recovers once space returns, and loses nothing acknowledged", async () => {
    const folder = Fs.mkdtempSync(Path.join(Os.tmpdir(), "animal-store-full-"))
    ChildProcess.execFileSync("mount", ["-t", "tmpfs", "-o", "size=2m", "tmpfs", folder], { stdio: "pipe" })
    const store = `sqlite:${Path.join(folder, "animal-store.db")}`
    const filler = Path.join(folder, "filler")
    const acknowledged: Array<string> = []
    const create = async (name: string) => {
      const response = await createPet(serving, name)
      if (response.status === 201) acknowledged.push(name)
      return response
    }
    let serving = await startServe(["--store", store], env)
    try {
      for (const name of ["Rex", "Tom", "Kit"]) expect((await create(name)).status).toBe(201)

      fill(filler)
      let refused: Response | undefined
      for (let n = 0; n < 200 && refused === undefined; n++) {
        const response = await create(`Full${n}`)
        if (response.status !== 201) refused = response
      }
      expect(refused).toBeDefined()
      await expectUnavailable(refused!)
      await expectUnavailable(await create("Refused"))

      expect(await names(serving)).toEqual(acknowledged)
      const first = await get(serving, "/v1/pets/1")
      expect(first.status).toBe(200)
      expect(await first.json()).toEqual(expect.objectContaining({ id: 1, name: "Rex" }))
      expect(logged(serving, "ERROR", fullDisk)).toHaveLength(1)

      Fs.rmSync(filler)
      expect(await eventually(async () => (await create("Back")).status === 201)).toBe(true)
      expect((await create("Again")).status).toBe(201)
      expect(logged(serving, "ERROR", fullDisk)).toHaveLength(1)
      expect(await names(serving)).toEqual(acknowledged)

      expect(await stop(serving)).toBe(0)
      serving = await startServe(["--store", store], env)
      expect(await names(serving)).toEqual(acknowledged)
    } finally {
      await stop(serving)
      ChildProcess.execFileSync("umount", [folder], { stdio: "pipe" })
      Fs.rmSync(folder, { recursive: true, force: true })
    }
  }, 60_000)
})
