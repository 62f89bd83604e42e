/**
 * A clone's first `pnpm install`, before anything is built: the workspace's
 * manifests, lockfile and the server's bin (the files a clone has before its
 * build) installed with the lockfile's packages, as from pnpm's store.
 */
import { afterAll, describe, expect, it } from "vitest"
import * as ChildProcess from "node:child_process"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"

const root = Path.resolve(Path.dirname(fileURLToPath(import.meta.url)), "../..")
const clone = Fs.mkdtempSync(Path.join(Os.tmpdir(), "animal-store-clone-"))

afterAll(() => Fs.rmSync(clone, { recursive: true, force: true }))

/** Copies `path` (relative to the workspace) into the clone. */
const copy = (path: string) => {
  Fs.mkdirSync(Path.dirname(Path.join(clone, path)), { recursive: true })
  Fs.cpSync(Path.join(root, path), Path.join(clone, path), { recursive: true })
}

describe("a clone's pnpm install", () => {
  it("links the animal-store command without a warning, before the build", async () => {
    for (const file of ["package.json", "pnpm-lock.yaml", "pnpm-workspace.yaml", "examples/package.json"]) copy(file)
    for (const name of Fs.readdirSync(Path.join(root, "packages"))) copy(`packages/${name}/package.json`)
    const manifest = JSON.parse(Fs.readFileSync(Path.join(root, "packages/server/package.json"), "utf8"))
    // the bin, unless it is a build output (ignored by git: a clone has none before it builds)
    const bin = Path.join("packages/server", manifest.bin["animal-store"])
    const ignored = ChildProcess.spawnSync("git", ["check-ignore", "-q", bin], { cwd: root }).status === 0
    if (!ignored) copy(bin)
    const env = Object.fromEntries(
      Object.entries(process.env).filter(([name]) => !/^(npm_|pnpm_|PNPM|VITEST|NODE_OPTIONS)/i.test(name))
    )
    // The lockfile's packages are in pnpm's store (the workspace was installed from it): no network.
    const output = await new Promise<string>((resolve, reject) => {
      ChildProcess.execFile(
        "pnpm",
        ["install", "--offline", "--frozen-lockfile", "--ignore-scripts", "--reporter=append-only"],
        { cwd: clone, env, maxBuffer: 16 << 20 },
        (error, stdout, stderr) => error === null ? resolve(stdout + stderr) : reject(new Error(`${error.message}\n${stdout}${stderr}`))
      )
    })
    expect(output).not.toContain("Failed to create bin")
    for (const dir of [".", "examples"]) {
      expect(Fs.existsSync(Path.join(clone, dir, "node_modules/.bin/animal-store")), dir).toBe(true)
    }
  }, 300_000)
})
