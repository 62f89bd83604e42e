/**
 * A SQLite commit that fails (the WAL file made immutable between requests):
 * the client gets 503 `service_unavailable`, the access log line of that
 * request says 503, and once the file is writable again writes succeed.
 * `chattr` needs root and a file system with the immutable flag (ext4, xfs...).
 */
import { describe, expect, it } from "@effect/vitest"
import * as ChildProcess from "node:child_process"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import type { Serving } from "./support/CliProcess.js"
import { startServe } from "./support/CliProcess.js"

const key = "ask_live_commitfailuretest0001"
const env = { ANIMAL_STORE_API_KEYS: `${key}:pro` }

const chattr = (flag: "+i" | "-i", file: string) => ChildProcess.execFileSync("chattr", [flag, file], { stdio: "pipe" })

const createPet = (serving: Serving, name: string, idempotencyKey?: string) =>
  fetch(`${serving.origin}/v1/pets`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${key}`,
      "content-type": "application/json",
      ...(idempotencyKey === undefined ? {} : { "idempotency-key": idempotencyKey })
    },
    body: JSON.stringify({ name, categoryId: 1 })
  })

const names = async (serving: Serving) => {
  const listed = await fetch(`${serving.origin}/v1/pets`, { headers: { authorization: `Bearer ${key}` } })
  return ((await listed.json()) as ReadonlyArray<{ readonly name: string }>).map((pet) => pet.name)
}

/** The statuses of the access-log lines of `POST /v1/pets` written so far, in order. */
const createStatuses = (serving: Serving): ReadonlyArray<number> =>
  serving.stdout().split("\n").flatMap((line) => {
    if (!line.startsWith("{")) return []
    const parsed = JSON.parse(line) as Record<string, unknown>
    const fields = (parsed.annotations ?? parsed) as { method?: unknown; path?: unknown; status?: unknown }
    return fields.method === "POST" && fields.path === "/v1/pets" && typeof fields.status === "number" ? [fields.status] : []
  })

/** Waits until the access log holds `count` lines of `POST /v1/pets`: their statuses. */
const accessLogged = async (serving: Serving, count: number) => {
  for (const deadline = Date.now() + 10_000; createStatuses(serving).length < count && Date.now() < deadline;) {
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
  return createStatuses(serving)
}

/** Runs `body` against a server on a new SQLite file, with that file's WAL; stops it and removes the file after. */
const withServing = async (body: (serving: Serving, wal: string) => Promise<void>) => {
  const folder = Fs.mkdtempSync(Path.join(Os.tmpdir(), "animal-store-commit-"))
  const filename = Path.join(folder, "animal-store.db")
  const wal = `${filename}-wal`
  const serving = await startServe(["--store", `sqlite:${filename}`], env)
  try {
    await body(serving, wal)
  } finally {
    if (Fs.existsSync(wal)) chattr("-i", wal)
    serving.child.kill("SIGTERM")
    await serving.exited
    Fs.rmSync(folder, { recursive: true, force: true })
  }
}

describe("a SQLite commit that fails", () => {
  it("is answered 503 service_unavailable, logged as 503, and writes succeed again once the file is writable", () =>
    withServing(async (serving, wal) => {
      expect((await createPet(serving, "Rex")).status).toBe(201)
      expect(Fs.existsSync(wal)).toBe(true)

      chattr("+i", wal)
      const refused = await createPet(serving, "Tom")
      chattr("-i", wal)
      expect(refused.status).toBe(503)
      expect(await refused.json()).toEqual(expect.objectContaining({ code: "service_unavailable", status: 503 }))
      expect(await accessLogged(serving, 2)).toEqual([201, 503])

      const again = await createPet(serving, "Kit")
      expect(again.status).toBe(201)
      expect(await names(serving)).toEqual(["Rex", "Kit"])
      expect(await accessLogged(serving, 3)).toEqual([201, 503, 201])
    }), 60_000)

  it("loses a keyed create with its commit: the retry with the same key creates the animal once", () =>
    withServing(async (serving, wal) => {
      expect((await createPet(serving, "Rex")).status).toBe(201)
      chattr("+i", wal)
      const refused = await createPet(serving, "Tom", "retry-me")
      chattr("-i", wal)
      expect(refused.status).toBe(503)

      const retried = await createPet(serving, "Tom", "retry-me")
      expect(retried.status).toBe(201)
      const created = (await retried.json()) as { readonly id: number }
      const replayed = await createPet(serving, "Tom", "retry-me")
      expect(replayed.status).toBe(201)
      expect(await replayed.json()).toEqual(created)
      expect(await names(serving)).toEqual(["Rex", "Tom"])
      expect(await accessLogged(serving, 4)).toEqual([201, 503, 201, 201])
    }), 60_000)
})
