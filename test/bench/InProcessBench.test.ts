/**
 * The benchmark harness as `pnpm bench` runs it, on the built packages: its
 * in-process part at a small size (no wrk needed), so a change of the stores
 * that breaks it (a create that ends after the call returns, a store's own
 * cursor secret) fails here, not at the next benchmark run. No figure is
 * asserted: the harness itself checks that each store answers as the raw
 * better-sqlite3 floor does.
 */
import * as ChildProcess from "node:child_process"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "vitest"

const root = Path.resolve(Path.dirname(fileURLToPath(import.meta.url)), "../..")

/**
 * Runs the harness to its end (SIGKILL after 120 s). Not `spawnSync`: a test worker's event loop held
 * for over a minute misses vitest's own calls (a loaded run failed on "Timeout calling onTaskUpdate").
 */
const runBench = (args: ReadonlyArray<string>) =>
  new Promise<{ readonly status: number | null; readonly stderr: string }>((resolve, reject) => {
    const child = ChildProcess.spawn(process.execPath, ["--import", "tsx", "bench/run.ts", ...args], {
      cwd: root,
      stdio: ["ignore", "ignore", "pipe"],
      timeout: 120_000,
      killSignal: "SIGKILL"
    })
    let stderr = ""
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk))
    child.on("error", reject).on("close", (status) => resolve({ status, stderr }))
  })

describe("pnpm bench (in-process part)", () => {
  it("runs every scenario on both stores and writes a result for each", async () => {
    const folder = Fs.mkdtempSync(Path.join(Os.tmpdir(), "animal-store-bench-test-"))
    try {
      const out = Path.join(folder, "results.json")
      const run = await runBench(["--only", "inprocess", "--sizes", "2000", "--out", out])
      expect(run.status, run.stderr).toBe(0)
      expect(run.stderr).not.toMatch(/Error/)
      const results = JSON.parse(Fs.readFileSync(out, "utf8")) as {
        readonly inProcess: { readonly results: ReadonlyArray<{ readonly operation: string; readonly store: string; readonly ratio: number }> }
      }
      const rows = results.inProcess.results.map((row) => `${row.store} ${row.operation}`).sort()
      expect(rows).toEqual(
        ["memory", "sqlite"].flatMap((store) =>
          ["createPet", "getPet", "listPets limit=20", "listPets status limit=100"].map((operation) => `${store} ${operation}`)
        ).sort()
      )
      for (const row of results.inProcess.results) expect(row.ratio).toBeGreaterThan(0)
    } finally {
      Fs.rmSync(folder, { recursive: true, force: true })
    }
  }, 180_000)
})
