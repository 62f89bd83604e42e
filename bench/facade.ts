/**
 * In-process, the design's first use: a host calling the Promise facade's `guarded.getPet` with a
 * key on the SQLite store, one call at a time and 64 at once, beside the plain better-sqlite3
 * equivalent (the key read by digest, both windows counted in one synchronous `BEGIN IMMEDIATE`
 * transaction, the animal read). CPU and wall time per call, interleaved rounds, medians.
 */
import { AnimalStore } from "@animal-store/core"
import { SqliteStore } from "@animal-store/sqlite-store"
import { createHash } from "node:crypto"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { fillSqlite } from "./dataset.js"
import { openRaw } from "./rawSqlite.js"

export interface FacadeMeasure {
  readonly cpuMicros: number
  readonly wallMicros: number
}

export interface FacadeResult {
  readonly concurrency: number
  readonly facade: FacadeMeasure
  readonly plain: FacadeMeasure
  /** facade / plain, CPU and wall time per call. */
  readonly cpuRatio: number
  readonly wallRatio: number
}

const median = (values: ReadonlyArray<number>): number => [...values].sort((a, b) => a - b)[values.length >> 1]!

const cpuMicros = () => {
  const { system, user } = process.cpuUsage()
  return user + system
}

/** Runs `calls` calls of `call`, `concurrency` at a time: CPU and wall time per call. */
const time = async (call: (i: number) => unknown, calls: number, concurrency: number): Promise<FacadeMeasure> => {
  const cpu = cpuMicros()
  const wall = performance.now()
  for (let i = 0; i < calls; i += concurrency) {
    if (concurrency === 1) await call(i)
    else await Promise.all(Array.from({ length: concurrency }, (_, k) => call(i + k)))
  }
  return { cpuMicros: (cpuMicros() - cpu) / calls, wallMicros: ((performance.now() - wall) * 1000) / calls }
}

const plainGetPet = (filename: string) => {
  const db = openRaw(filename)
  db.pragma("synchronous = NORMAL")
  db.pragma("busy_timeout = 5000")
  const findKey = db.prepare("SELECT id, per_minute, per_day, revoked_at FROM api_keys WHERE digest = ?")
  const readLimit = db.prepare(
    "SELECT minute_start, minute_count, day_start, day_count, refused_count, banned_until FROM rate_limits WHERE subject = ?"
  )
  const writeLimit = db.prepare(
    `INSERT INTO rate_limits (subject, minute_start, minute_count, day_start, day_count, refused_count, banned_until)
     VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (subject) DO UPDATE SET minute_start = excluded.minute_start,
     minute_count = excluded.minute_count, day_start = excluded.day_start, day_count = excluded.day_count,
     refused_count = excluded.refused_count, banned_until = excluded.banned_until`
  )
  const findPet = db.prepare("SELECT id, name, category_id AS categoryId, status FROM pets WHERE id = ?")
  type Limit = { minute_start: number; minute_count: number; day_start: number; day_count: number }
  const count = db.transaction((subject: string, now: number) => {
    const state = readLimit.get(subject) as Limit | undefined
    const minuteStart = Math.floor(now / 60_000) * 60_000
    const dayStart = Math.floor(now / 86_400_000) * 86_400_000
    const minute = state !== undefined && state.minute_start >= minuteStart ? state.minute_count : 0
    const day = state !== undefined && state.day_start >= dayStart ? state.day_count : 0
    writeLimit.run(subject, minuteStart, minute + 1, dayStart, day + 1, 0, 0)
  })
  return {
    call: (secret: string, id: number) => {
      const key = findKey.get(createHash("sha256").update(secret, "utf8").digest("hex")) as { id: string } | undefined
      if (key === undefined) throw new Error("plain: no key")
      count.immediate(`key:${key.id}`, Date.now())
      return findPet.get(id)
    },
    close: () => db.close()
  }
}

/** The facade's `guarded.getPet` against the plain equivalent, at 1 and 64 calls at once. */
export const runFacade = async (
  options: { readonly rounds: number; readonly calls: number },
  log: (line: string) => void
): Promise<ReadonlyArray<FacadeResult>> => {
  const folder = Fs.mkdtempSync(Path.join(Os.tmpdir(), "animal-store-bench-facade-"))
  const filename = Path.join(folder, "pets.db")
  const pets = 10_000
  await fillSqlite(filename, pets)
  const store = await AnimalStore.open({ store: SqliteStore.layer({ filename }) })
  const plain = plainGetPet(filename)
  try {
    const { secret } = await store.keys.issue({ plan: "enterprise", limits: { perMinute: 1e9, perDay: 1e12 } })
    const request = { credential: secret, clientAddress: "192.0.2.10" }
    const idOf = (i: number) => 1 + ((i * 7919) % pets)
    const facadeCall = (i: number) => store.guarded.getPet(request, idOf(i))
    const plainCall = async (i: number) => plain.call(secret, idOf(i))
    const results: Array<FacadeResult> = []
    for (const concurrency of [1, 64]) {
      await time(facadeCall, options.calls, concurrency)
      await time(plainCall, options.calls, concurrency)
      const rounds = { facade: [] as Array<FacadeMeasure>, plain: [] as Array<FacadeMeasure> }
      for (let round = 0; round < options.rounds; round++) {
        const order = round % 2 === 0 ? (["facade", "plain"] as const) : (["plain", "facade"] as const)
        for (const way of order) rounds[way].push(await time(way === "facade" ? facadeCall : plainCall, options.calls, concurrency))
      }
      const of = (measures: ReadonlyArray<FacadeMeasure>): FacadeMeasure => ({
        cpuMicros: median(measures.map((m) => m.cpuMicros)),
        wallMicros: median(measures.map((m) => m.wallMicros))
      })
      const facade = of(rounds.facade)
      const plainMeasure = of(rounds.plain)
      const result = {
        concurrency,
        facade,
        plain: plainMeasure,
        cpuRatio: facade.cpuMicros / plainMeasure.cpuMicros,
        wallRatio: facade.wallMicros / plainMeasure.wallMicros
      }
      results.push(result)
      log(`  guarded.getPet, ${concurrency} at once: facade ${facade.cpuMicros.toFixed(1)} µs CPU / ${facade.wallMicros.toFixed(1)} µs wall, ` +
        `plain ${plainMeasure.cpuMicros.toFixed(1)} / ${plainMeasure.wallMicros.toFixed(1)} µs (${result.cpuRatio.toFixed(2)}x, ${result.wallRatio.toFixed(2)}x)`)
    }
    return results
  } finally {
    plain.close()
    await store.close()
    Fs.rmSync(folder, { recursive: true, force: true })
  }
}
