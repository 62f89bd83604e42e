/**
 * The SQLite store's lock waits on the operations listener's `/metrics` of the
 * bundled server: a keyed request counted while another process holds the
 * file's write lock waits for it, and the wait is in
 * `animal_store_sqlite_lock_wait_seconds`.
 */
import { describe, expect, it } from "@effect/vitest"
import Database from "better-sqlite3"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import parsePrometheus from "parse-prometheus-text-format"
import { startServe } from "./support/CliProcess.js"
import { opsOrigin } from "./support/metrics.js"

const key = "ask_live_lockwaitskey00000001"

/** The lock-wait histogram's samples: `count`, `sum` and the buckets by `le`. */
const lockWaits = async (ops: string) => {
  const text = await (await fetch(`${ops}/metrics`)).text()
  const family = parsePrometheus(text).find((family) => family.name === "animal_store_sqlite_lock_wait_seconds")
  const metric = family?.metrics[0] as { count: string; sum: string; buckets: Record<string, string> } | undefined
  return {
    type: family?.type,
    count: Number(metric?.count ?? Number.NaN),
    sum: Number(metric?.sum ?? Number.NaN),
    buckets: metric?.buckets ?? {}
  }
}

describe("lock waits on the operations listener", () => {
  it("a request counted while another process holds the SQLite file's write lock waits, and the wait is measured", async () => {
    const folder = Fs.mkdtempSync(Path.join(Os.tmpdir(), "animal-store-lock-waits-"))
    const filename = Path.join(folder, "store.db")
    const serving = await startServe(["--store", `sqlite:${filename}`, "--ops-port", "0"], {
      ANIMAL_STORE_API_KEYS: `${key}:enterprise:1000:100000`,
      ANIMAL_STORE_ACCESS_LOG: "off"
    })
    const holder = new Database(filename, { fileMustExist: true })
    try {
      const ops = await opsOrigin(serving)
      const headers = { authorization: `Bearer ${key}` }
      expect((await fetch(`${serving.origin}/v1/pets`, { headers })).status).toBe(200)
      const before = await lockWaits(ops)
      expect(before).toMatchObject({ type: "HISTOGRAM", count: 0 })

      holder.prepare("BEGIN IMMEDIATE").run()
      const started = Date.now()
      const answered = fetch(`${serving.origin}/v1/pets`, { headers }).then((response) => response.status)
      await new Promise((resolve) => setTimeout(resolve, 300))
      holder.prepare("COMMIT").run()
      expect(await answered).toBe(200)
      const waited = (Date.now() - started) / 1000

      const after = await lockWaits(ops)
      expect(after.count).toBe(1)
      expect(after.sum).toBeGreaterThan(0.1)
      expect(after.sum).toBeLessThanOrEqual(waited)
      expect(Number(after.buckets["0.05"])).toBe(0)
      expect(Number(after.buckets["5"])).toBe(1)
    } finally {
      holder.close()
      serving.child.kill("SIGTERM")
      await serving.exited
      Fs.rmSync(folder, { recursive: true, force: true })
    }
  }, 60_000)
})
