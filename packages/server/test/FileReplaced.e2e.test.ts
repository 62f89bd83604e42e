/**
 * The files of a served SQLite database moved away, replaced or deleted
 * while the server runs: writes get 503 with `Retry-After` and an `Error`
 * body (nothing is acknowledged into a file the next start would not
 * open), reads keep answering from the files opened, the fault is logged
 * once, writes are accepted again once the file is back, and nothing
 * acknowledged is missing after a restart. A deleted database is not
 * created again unless `--create` asks. An `-shm` file made immutable
 * while serving refuses reads and writes (touching its mapping would kill
 * the process); one unwritable at start stops the start with one line.
 * `chattr` needs root and ext4-like /tmp.
 */
import { describe, expect, it } from "@effect/vitest"
import * as ChildProcess from "node:child_process"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import type { Serving } from "./support/CliProcess.js"
import { runCli, startServe } from "./support/CliProcess.js"
import { createPet, env, eventually, expectUnavailable, get, logged, names, stop } from "./support/storeFaults.js"

const refusedLog = "SQLite store: writes refused until the file is restored or the server restarts"
const acceptedLog = "SQLite store: writes accepted again"

/** `text` as a regular expression that matches it alone. */
const escaped = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")

const withFolder = async (f: (filename: string) => Promise<void>) => {
  const folder = Fs.mkdtempSync(Path.join(Os.tmpdir(), "animal-store-replaced-"))
  try {
    await f(Path.join(folder, "animal-store.db"))
  } finally {
    Fs.rmSync(folder, { recursive: true, force: true })
  }
}

/** Creates animals on `serving`, the names of those acknowledged (201) kept in `acknowledged`. */
const creating = (acknowledged: Array<string>) => async (serving: Serving, name: string) => {
  const response = await createPet(serving, name)
  if (response.status === 201) acknowledged.push(name)
  return response
}

describe("the files of a served SQLite database changed under it", () => {
  it("refuses writes while the file is moved away or replaced, keeps reads, recovers once it is back, loses nothing", () =>
    withFolder(async (filename) => {
      const store = `sqlite:${filename}`
      const acknowledged: Array<string> = []
      const create = creating(acknowledged)
      let serving = await startServe(["--store", store], env)
      try {
        expect((await create(serving, "Rex")).status).toBe(201)

        // Moved away, then back.
        Fs.renameSync(filename, `${filename}.moved`)
        await expectUnavailable(await create(serving, "Tom"))
        await expectUnavailable(await create(serving, "Kit"))
        expect(await names(serving)).toEqual(["Rex"])
        expect((await get(serving, "/v1/pets/1")).status).toBe(200)
        expect(logged(serving, "ERROR", refusedLog)).toHaveLength(1)
        // Readiness fails while the file is away (it is cached for at most a second).
        expect(await eventually(async () => (await get(serving, "/readyz")).status === 503)).toBe(true)
        Fs.renameSync(`${filename}.moved`, filename)
        expect((await create(serving, "Max")).status).toBe(201)
        expect(await eventually(async () => (await get(serving, "/readyz")).status === 200)).toBe(true)
        expect(logged(serving, "INFO", acceptedLog)).toHaveLength(1)

        // Replaced by a copy of itself (another file), then the original put back.
        Fs.linkSync(filename, `${filename}.kept`)
        Fs.copyFileSync(filename, `${filename}.copy`)
        Fs.renameSync(`${filename}.copy`, filename)
        await expectUnavailable(await create(serving, "Bob"))
        expect(await names(serving)).toEqual(["Rex", "Max"])
        // Noticed without writes too, once a second.
        Fs.renameSync(`${filename}.kept`, filename)
        expect(await eventually(() => logged(serving, "INFO", acceptedLog).length === 2)).toBe(true)
        expect((await create(serving, "Sam")).status).toBe(201)
        expect(logged(serving, "ERROR", refusedLog)).toHaveLength(2)

        expect(await stop(serving)).toBe(0)
        serving = await startServe(["--store", store], env)
        expect(await names(serving)).toEqual(acknowledged)
        expect(acknowledged).toEqual(["Rex", "Max", "Sam"])
      } finally {
        await stop(serving)
      }
    }), 60_000)

  it("refuses writes once the WAL or the database file is deleted; the next start refuses the lost store with one line, --create starts a new one", () =>
    withFolder(async (filename) => {
      const store = `sqlite:${filename}`
      let serving = await startServe(["--store", store], env)
      try {
        expect((await createPet(serving, "Rex")).status).toBe(201)
        Fs.rmSync(`${filename}-wal`)
        await expectUnavailable(await createPet(serving, "Tom"))
        expect(await names(serving)).toEqual(["Rex"])
        Fs.rmSync(filename)
        await expectUnavailable(await createPet(serving, "Kit"))
        expect(logged(serving, "ERROR", refusedLog)).toHaveLength(1)
        expect(logged(serving, "ERROR", refusedLog)[0]).toContain("WAL file")

        expect(await stop(serving)).toBe(0)
        const refused = await runCli(["serve", "--port", "0", "--store", store], env)
        expect(refused.code).toBe(1)
        // One line naming the database, the marker the store left beside it (and what SQLite kept: -shm, maybe -wal), and --create.
        const lines = refused.stderr.split("\n")
        expect(lines).toHaveLength(2)
        expect(lines[0]).toMatch(new RegExp(
          `^animal-store: cannot use the store ${escaped(store)}: the SQLite database "${escaped(filename)}" is gone, but ` +
            `"${escaped(filename)}-created", ("${escaped(filename)}-wal", )?"${escaped(filename)}-shm" of a previous store ` +
            `is still there: restore the database, or open it with create \\(animal-store serve --create\\) to start a new, empty store$`
        ))
        expect(Fs.existsSync(filename)).toBe(false)
        serving = await startServe(["--store", store, "--create"], env)
        expect(await names(serving)).toEqual([])
        expect((await createPet(serving, "Max")).status).toBe(201)
      } finally {
        await stop(serving)
      }
    }), 60_000)

  it("an -shm file made immutable while serving: 503 with Retry-After and failing readiness, no dead process, recovered once writable", () =>
    withFolder(async (filename) => {
      const shm = `${filename}-shm`
      const serving = await startServe(["--store", `sqlite:${filename}`], env)
      let immutable = false
      try {
        expect((await createPet(serving, "Rex")).status).toBe(201)
        ChildProcess.execFileSync("chattr", ["+i", shm], { stdio: "pipe" })
        immutable = true
        await expectUnavailable(await createPet(serving, "Tom"))
        await expectUnavailable(await get(serving, "/v1/pets/1"))
        await expectUnavailable(await createPet(serving, "Kit"))
        expect(await eventually(async () => (await get(serving, "/readyz")).status === 503)).toBe(true)
        expect(logged(serving, "ERROR", refusedLog)).toEqual([expect.stringContaining("shared-memory file")])
        // Three refused requests, one fault: logged once when it starts.
        expect(logged(serving, "ERROR", "Store failure")).toHaveLength(1)
        ChildProcess.execFileSync("chattr", ["-i", shm], { stdio: "pipe" })
        immutable = false
        expect((await createPet(serving, "Max")).status).toBe(201)
        expect(await names(serving)).toEqual(["Rex", "Max"])
        expect(await eventually(async () => (await get(serving, "/readyz")).status === 200)).toBe(true)
        expect(logged(serving, "INFO", acceptedLog)).toHaveLength(1)
        // ... and once when it ends.
        expect(await eventually(() => logged(serving, "INFO", "Store fault ended").length === 1)).toBe(true)
        expect(logged(serving, "ERROR", "Store failure")).toHaveLength(1)
        expect(serving.child.exitCode).toBeNull()
      } catch (error) {
        // What the server logged (a worker's death, its signal) explains a failure here.
        await new Promise((resolve) => setTimeout(resolve, 1_000))
        const lines = serving.stdout().split("\n").filter((line) => !line.includes("http.request"))
        throw new Error(`${String(error)}\nthe server logged:\n${lines.slice(-20).join("\n")}`)
      } finally {
        if (immutable) ChildProcess.execFileSync("chattr", ["-i", shm], { stdio: "pipe" })
        expect(await stop(serving)).toBe(0)
      }
    }), 60_000)

  it("the WAL or the database file made immutable while serving: writes get 503, readiness fails, one line a fault, recovered once writable", () =>
    withFolder(async (filename) => {
      const serving = await startServe(["--store", `sqlite:${filename}`], env)
      const immutable = new Set<string>()
      const chattr = (flag: "+i" | "-i", path: string) => {
        ChildProcess.execFileSync("chattr", [flag, path], { stdio: "pipe" })
        if (flag === "+i") immutable.add(path)
        else immutable.delete(path)
      }
      try {
        const acknowledged = ["Rex"]
        expect((await createPet(serving, "Rex")).status).toBe(201)
        for (const [path, after] of [[`${filename}-wal`, "Max"], [filename, "Sam"]] as const) {
          chattr("+i", path)
          // The WAL refuses the write itself; the database file, which only checkpoints write, is noticed within a
          // second: a write before is in the WAL, acknowledged and kept.
          expect(await eventually(async () => {
            const status = (await createPet(serving, "Tom")).status
            if (status === 201) acknowledged.push("Tom")
            return status === 503
          })).toBe(true)
          await expectUnavailable(await createPet(serving, "Kit"))
          expect((await get(serving, "/v1/pets/1")).status).toBe(200)
          expect(await eventually(async () => (await get(serving, "/readyz")).status === 503)).toBe(true)
          chattr("-i", path)
          expect(await eventually(async () => (await get(serving, "/readyz")).status === 200)).toBe(true)
          expect((await createPet(serving, after)).status).toBe(201)
          acknowledged.push(after)
          expect(await names(serving)).toEqual(acknowledged)
        }
        // The WAL refused the first write at once.
        expect(acknowledged.indexOf("Max")).toBe(1)
        const refusals = logged(serving, "ERROR", refusedLog)
        expect(refusals).toEqual([expect.stringContaining(`"${filename}-wal" cannot be written`), expect.stringContaining(`"${filename}" cannot be written`)])
        expect(logged(serving, "INFO", acceptedLog)).toHaveLength(2)
        expect(logged(serving, "ERROR", "Store failure")).toHaveLength(2)
      } finally {
        for (const path of immutable) ChildProcess.execFileSync("chattr", ["-i", path], { stdio: "pipe" })
        expect(await stop(serving)).toBe(0)
      }
    }), 60_000)

  it("stops the start with one line and exit 1 when the -shm file cannot be written", () =>
    withFolder(async (filename) => {
      const shm = `${filename}-shm`
      Fs.writeFileSync(filename, "") // an empty database
      Fs.writeFileSync(shm, Buffer.alloc(32 * 1024))
      ChildProcess.execFileSync("chattr", ["+i", shm], { stdio: "pipe" })
      try {
        const finished = await runCli(["serve", "--port", "0", "--store", `sqlite:${filename}`], env)
        expect(finished.code).toBe(1)
        const lines = finished.stderr.trim().split("\n")
        expect(lines).toHaveLength(1)
        expect(lines[0]).toContain(`"${shm}"`)
        expect(lines[0]).toContain("cannot be written")
      } finally {
        ChildProcess.execFileSync("chattr", ["-i", shm], { stdio: "pipe" })
      }
    }), 30_000)
})
