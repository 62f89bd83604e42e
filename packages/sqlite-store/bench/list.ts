/**
 * Cost of listing animals with a status filter after a cursor on the SQLite
 * store, at 10,000 and at 1,000,000 animals.
 *
 *   node --import tsx bench/sqlite-list.ts   (from the repository root)
 *
 * Each size gets a fresh database file (filled in one statement), then
 * `SqlitePetRepository.list({ status, afterId, limit: 20 })` runs from cursors
 * spread over the whole table, and so does the same query on a raw
 * better-sqlite3 connection to the same file, for comparison. Costs are CPU
 * time of this process per listing, the median of 7 rounds alternating the
 * two ways (a busy shared machine changes them less than wall time); ops/s is
 * one second of CPU divided by that cost.
 */
import { Pet, PetRepository } from "@animal-store/core"
import * as SqlClient from "@effect/sql/SqlClient"
import { Effect, Layer } from "effect"
import * as Fs from "node:fs"
import { createRequire } from "node:module"
import * as Os from "node:os"
import * as Path from "node:path"
import { SqliteStore } from "../src/index.js"

interface RawStatement {
  all(...params: ReadonlyArray<unknown>): Array<unknown>
}
interface RawDatabase {
  prepare(sql: string): RawStatement
  close(): void
}
type RawDatabaseConstructor = new(filename: string, options?: { readonly readonly?: boolean }) => RawDatabase

const RawDatabase = createRequire(import.meta.url)("better-sqlite3") as RawDatabaseConstructor

const statuses: ReadonlyArray<Pet.PetStatus> = ["available", "pending", "sold"]
const pageSize = 20
const warmup = 5_000
const rounds = 7
const operationsPerRound = 3_000

const fill = (count: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql`INSERT INTO pets (name, category_id, status)
      WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ${count})
      SELECT 'pet ' || i, 1 + i % 50, CASE abs(random()) % 3 WHEN 0 THEN 'available' WHEN 1 THEN 'pending' ELSE 'sold' END
      FROM n`)

interface Query {
  readonly status: Pet.PetStatus
  readonly afterId: number
}

/** Random cursors over the whole table, each status in turn. */
const queriesFor = (count: number): ReadonlyArray<Query> =>
  Array.from({ length: operationsPerRound }, (_, i) => ({
    status: statuses[i % statuses.length]!,
    afterId: Math.floor(Math.random() * count)
  }))

interface Measure {
  readonly microsPerOp: number
  readonly opsPerSecond: number
  readonly rowsPerPage: number
}

const median = (values: ReadonlyArray<number>) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!

/** Runs the ways round-robin, and keeps the median round of each. */
const measure = <K extends string>(
  ways: Record<K, (query: Query) => number>,
  queries: ReadonlyArray<Query>
): Record<K, Measure> => {
  const names = Object.keys(ways) as Array<K>
  for (const name of names) for (let i = 0; i < warmup; i++) ways[name](queries[i % queries.length]!)
  const micros = new Map<K, Array<number>>(names.map((name) => [name, []]))
  const rows = new Map<K, number>(names.map((name) => [name, 0]))
  for (let round = 0; round < rounds; round++) {
    for (const name of names) {
      const run = ways[name]
      let found = 0
      const start = process.cpuUsage()
      for (const query of queries) found += run(query)
      const used = process.cpuUsage(start)
      micros.get(name)!.push((used.user + used.system) / queries.length)
      rows.set(name, found / queries.length)
    }
  }
  return Object.fromEntries(names.map((name) => {
    const microsPerOp = median(micros.get(name)!)
    return [name, { microsPerOp, opsPerSecond: 1e6 / microsPerOp, rowsPerPage: rows.get(name)! }]
  })) as Record<K, Measure>
}

const benchSize = (count: number) =>
  Effect.gen(function*() {
    const folder = Fs.mkdtempSync(Path.join(Os.tmpdir(), "animal-store-bench-"))
    const filename = Path.join(folder, "pets.db")
    try {
      const fillStart = Date.now()
      yield* fill(count).pipe(
        Effect.provide(Layer.scoped(SqlClient.SqlClient, SqliteStore.makeClient({ filename })))
      )
      const fillSeconds = (Date.now() - fillStart) / 1_000
      const queries = queriesFor(count)
      return yield* Effect.scoped(Effect.gen(function*() {
        const repository = yield* PetRepository.PetRepository
        const db = new RawDatabase(filename)
        yield* Effect.addFinalizer(() => Effect.sync(() => db.close()))
        const statement = db.prepare(
          "SELECT id, name, category_id AS categoryId, status FROM pets WHERE status = ? AND id > ? ORDER BY id LIMIT ?"
        )
        const result = measure({
          store: ({ afterId, status }) => {
            const exit = Effect.runSyncExit(
              repository.list({ status, afterId: Pet.PetId.make(afterId + 1), limit: pageSize })
            )
            if (exit._tag === "Failure") throw new Error(String(exit.cause))
            return exit.value.length
          },
          raw: ({ afterId, status }) => statement.all(status, afterId + 1, pageSize).length
        }, queries)
        return { count, fillSeconds, ...result }
      }).pipe(Effect.provide(SqliteStore.layer({ filename }))))
    } finally {
      Fs.rmSync(folder, { recursive: true, force: true })
    }
  })

const format = (n: number, digits = 1) => n.toLocaleString("en-US", { maximumFractionDigits: digits })

const program = Effect.gen(function*() {
  const results = []
  for (const count of [10_000, 1_000_000]) {
    const result = yield* benchSize(count)
    results.push(result)
    console.log(
      `${format(count, 0).padStart(9)} pets (filled in ${format(result.fillSeconds, 1)} s): ` +
        `SqlitePetRepository.list ${format(result.store.microsPerOp)} µs/op ` +
        `(${format(result.store.opsPerSecond, 0)} ops/s, ${format(result.store.rowsPerPage)} rows/page); ` +
        `raw better-sqlite3 ${format(result.raw.microsPerOp)} µs/op (${format(result.raw.opsPerSecond, 0)} ops/s)`
    )
  }
  const [small, large] = results
  if (small !== undefined && large !== undefined) {
    console.log(
      `1,000,000 / 10,000 cost ratio: store ${format(large.store.microsPerOp / small.store.microsPerOp, 2)}x, ` +
        `raw ${format(large.raw.microsPerOp / small.raw.microsPerOp, 2)}x; ` +
        `store / raw at 1,000,000: ${format(large.store.microsPerOp / large.raw.microsPerOp, 2)}x`
    )
  }
})

/**
 * Runs the benchmark and prints its results.
 */
export const main = (): Promise<void> =>
  Effect.runPromise(program).catch((error) => {
    console.error(error)
    process.exitCode = 1
  })
