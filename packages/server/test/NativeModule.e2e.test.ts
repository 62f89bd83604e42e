/**
 * The SQLite driver's native module built for another Node.js, as after
 * switching Node versions without reinstalling: the shipped bin, run by a
 * Node of another ABI, names the cause and the fix in its one line.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import * as ChildProcess from "node:child_process"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import * as StoreLocation from "../src/StoreLocation.js"
import { bin, cleanEnv, runNode } from "./support/CliProcess.js"
import { otherNode } from "./support/otherNode.js"

const run = (node: string, args: ReadonlyArray<string>) => runNode([bin, ...args], { env: cleanEnv(), node })

describe("better-sqlite3 built for another Node.js", () => {
  it("is reported as such, with the command that rebuilds it, not as a file that cannot be opened", async () => {
    const node = await otherNode()
    const abi = ChildProcess.execFileSync(node, ["-p", "process.versions.modules"], { encoding: "utf8" }).trim()
    expect(abi).not.toBe(process.versions.modules)
    const folder = Fs.mkdtempSync(Path.join(Os.tmpdir(), "animal-store-abi-"))
    const filename = Path.join(folder, "store.db")
    await Effect.runPromise(Effect.scoped(Layer.build(StoreLocation.layer({ _tag: "Sqlite", filename }))))
    try {
      for (const args of [["serve", "--port", "0"], ["keys", "list"]]) {
        const finished = await run(node, [...args, "--store", `sqlite:${filename}`])
        const lines = finished.stderr.split("\n").filter((line) => line !== "")
        expect(finished.code, finished.stderr).toBe(1)
        expect(lines, finished.stderr).toHaveLength(1)
        expect(lines[0]).toMatch(/^animal-store: cannot use the store sqlite:.*store\.db: /)
        expect(lines[0]).toContain("native module (better-sqlite3) cannot be loaded by this Node.js")
        expect(lines[0]).toContain("built for another Node.js version")
        expect(lines[0]).toContain("`pnpm rebuild better-sqlite3`")
        expect(lines[0]).toContain("`npm rebuild better-sqlite3`")
        expect(lines[0]).toContain(`NODE_MODULE_VERSION ${process.versions.modules}`)
        expect(lines[0]).not.toContain("cannot be opened")
      }
    } finally {
      Fs.rmSync(folder, { recursive: true, force: true })
    }
  }, 600_000) // the other Node comes from the npm registry on a first run
})
