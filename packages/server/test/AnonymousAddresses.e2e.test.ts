/**
 * Requests without a valid key on the shipped bin, on a SQLite file: thousands
 * of client addresses write nothing to the store (no row in `rate_limits`, the
 * database and its WAL do not grow), and one address is still limited to 60
 * requests a minute, refused with 429 and the rate-limit headers.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import Database from "better-sqlite3"
import * as Fs from "node:fs"
import * as Http from "node:http"
import * as Os from "node:os"
import * as Path from "node:path"
import type { Serving } from "./support/CliProcess.js"
import { startServe } from "./support/CliProcess.js"

interface Reply {
  readonly status: number
  readonly headers: Http.IncomingHttpHeaders
}

/** `GET /v1/pets` without a key, from `localAddress` (Linux routes all of 127.0.0.0/8 to the loopback). */
const getFrom = (origin: string, localAddress: string) =>
  new Promise<Reply>((resolve, reject) => {
    const request = Http.request(new URL("/v1/pets", origin), { agent: false, localAddress }, (response) => {
      response.resume()
      response.on("end", () => resolve({ status: response.statusCode ?? 0, headers: response.headers }))
    })
    request.on("error", reject)
    request.end()
  })

/** Runs `f` on each item, `concurrency` at a time. */
const eachLimited = async <A, B>(items: ReadonlyArray<A>, concurrency: number, f: (item: A) => Promise<B>) => {
  const results: Array<B> = []
  let next = 0
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (next < items.length) {
      const index = next++
      results[index] = await f(items[index]!)
    }
  }))
  return results
}

const sizeOf = (file: string) => (Fs.existsSync(file) ? Fs.statSync(file).size : 0)

/** The database as a reader sees it (its WAL included): its pages and the rows of `rate_limits`. */
const read = (filename: string) => {
  const database = new Database(filename, { readonly: true, fileMustExist: true })
  try {
    const value = (sql: string) => Object.values(database.prepare(sql).get() as Record<string, number>)[0]!
    return {
      pages: value("PRAGMA page_count"),
      pageSize: value("PRAGMA page_size"),
      rateLimitRows: value("SELECT count(*) FROM rate_limits")
    }
  } finally {
    database.close()
  }
}

describe("requests without a valid key, on a SQLite file", () => {
  let folder: string
  let filename: string
  let serving: Serving

  beforeAll(async () => {
    folder = Fs.mkdtempSync(Path.join(Os.tmpdir(), "animal-store-anonymous-"))
    filename = Path.join(folder, "animal-store.db")
    serving = await startServe(["--store", `sqlite:${filename}`, "--access-log", "off"])
  })

  afterAll(async () => {
    serving.child.kill("SIGTERM")
    await serving.exited
    Fs.rmSync(folder, { recursive: true, force: true })
  })

  it("3,000 client addresses write no row and grow neither the database nor its WAL", async () => {
    const before = { ...read(filename), wal: sizeOf(`${filename}-wal`) }
    const addresses = Array.from({ length: 3_000 }, (_, i) => `127.1.${i >> 8}.${i & 255}`)
    const replies = await eachLimited(addresses, 32, (address) => getFrom(serving.origin, address))
    // Each address is a client of its own: its first request, counted, refused for want of a key.
    expect(new Set(replies.map((reply) => `${reply.status} ${reply.headers["x-ratelimit-remaining"]}`))).toEqual(
      new Set(["401 59"])
    )

    const after = read(filename)
    expect(after.rateLimitRows).toBe(0)
    // A row per address: 30 more pages (120 KiB) and 13 MB of WAL frames, as the build before wrote.
    expect(after.pages - before.pages).toBeLessThanOrEqual(2)
    expect(sizeOf(filename)).toBeLessThanOrEqual((before.pages + 4) * before.pageSize)
    expect(sizeOf(`${filename}-wal`) - before.wal).toBeLessThanOrEqual(4 * (before.pageSize + 24))
  })

  it("one address is limited to 60 requests a minute: the 61st of its window is 429 with the headers", async () => {
    const replies: Array<Reply> = []
    let refused: Reply | undefined
    // At most two windows' worth: the minute may turn while it runs.
    while (refused === undefined && replies.length < 122) {
      const reply = await getFrom(serving.origin, "127.2.0.1")
      if (reply.status === 429) refused = reply
      else replies.push(reply)
    }
    expect(refused).toBeDefined()
    const reset = refused!.headers["x-ratelimit-reset"]
    const window = replies.filter((reply) => reply.headers["x-ratelimit-reset"] === reset)
    expect(window.map((reply) => reply.status)).toEqual(Array(60).fill(401))
    expect(window.map((reply) => reply.headers["x-ratelimit-remaining"])).toEqual(
      Array.from({ length: 60 }, (_, i) => String(59 - i))
    )
    const retryAfter = Number(refused!.headers["retry-after"])
    expect(retryAfter).toBeGreaterThanOrEqual(1)
    expect(retryAfter).toBeLessThanOrEqual(60)
    expect(refused!.headers).toMatchObject({
      "x-ratelimit-limit": "60",
      "x-ratelimit-remaining": "0",
      "ratelimit-policy": "\"minute\";q=60;w=60",
      "ratelimit": expect.stringMatching(/^"minute";r=0;t=\d+$/)
    })
    // Another address is another client.
    expect((await getFrom(serving.origin, "127.2.0.2")).headers["x-ratelimit-remaining"]).toBe("59")
  })
})
