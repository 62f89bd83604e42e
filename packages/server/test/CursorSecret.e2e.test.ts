/**
 * Listing cursors across server processes on one SQLite file: the cursor
 * secret is the store's (kept in the database), so a cursor issued by one
 * process is accepted by another and after a restart; `--cursor-secret`
 * replaces it.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import type { Serving } from "./support/CliProcess.js"
import { startServe } from "./support/CliProcess.js"

const key = "ask_live_cursorsecrettest0001"
const env = { ANIMAL_STORE_API_KEYS: `${key}:pro`, ANIMAL_STORE_ACCESS_LOG: "off" }
const headers = { authorization: `Bearer ${key}` }

/** The status, the names on a page and the query of its next link. */
const page = async (serving: Serving, query: string) => {
  const response = await fetch(`${serving.origin}/v1/pets${query}`, { headers })
  const body = await response.json() as ReadonlyArray<{ readonly name: string }>
  const link = response.headers.get("link")
  const next = link === null ? undefined : new URL(/<([^>]+)>/.exec(link)![1]!, serving.origin).search
  return { status: response.status, names: response.status === 200 ? body.map((pet) => pet.name) : [], next }
}

const stop = async (serving: Serving) => {
  serving.child.kill("SIGTERM")
  expect((await serving.exited).code).toBe(0)
}

describe("listing cursors across processes on one SQLite file", () => {
  it("a cursor issued by one process is accepted by another, and after a restart; --cursor-secret replaces the store's", async () => {
    const folder = Fs.mkdtempSync(Path.join(Os.tmpdir(), "animal-store-cursor-"))
    const store = ["--store", `sqlite:${Path.join(folder, "animal-store.db")}`]
    try {
      const [first, second] = await Promise.all([startServe(store, env), startServe(store, env)])
      for (const name of ["Rex", "Tom", "Kit"]) {
        const created = await fetch(`${first.origin}/v1/pets`, {
          method: "POST",
          headers: { ...headers, "content-type": "application/json" },
          body: JSON.stringify({ name, categoryId: 1 })
        })
        expect(created.status).toBe(201)
      }
      const one = await page(first, "?limit=1")
      expect(one.names).toEqual(["Rex"])
      expect(one.next).toMatch(/cursor=/)

      const two = await page(second, one.next!)
      expect(two.status).toBe(200)
      expect(two.names).toEqual(["Tom"])

      await Promise.all([stop(first), stop(second)])
      const restarted = await startServe(store, env)
      const again = await page(restarted, one.next!)
      expect(again.status).toBe(200)
      expect(again.names).toEqual(["Tom"])
      const three = await page(restarted, two.next!)
      expect(three.names).toEqual(["Kit"])

      // A configured secret wins over the store's: the store's cursors are
      // foreign to it, and its cursors to the store's.
      const configured = await startServe([...store, "--cursor-secret", "c".repeat(40)], env)
      const refused = await page(configured, one.next!)
      expect(refused.status).toBe(400)
      const own = await page(configured, "?limit=1")
      expect((await page(configured, own.next!)).status).toBe(200)
      expect((await page(restarted, own.next!)).status).toBe(400)
      await Promise.all([stop(restarted), stop(configured)])
    } finally {
      Fs.rmSync(folder, { recursive: true, force: true })
    }
  }, 60_000)
})
