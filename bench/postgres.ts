/**
 * The standalone server as shipped (the bundled bin, access log on) on
 * PostgreSQL, beside `references/pg-server.ts` (node:http + `pg`, the
 * rate-limit step one PL/pgSQL call, the operation a second statement), each
 * on a database of its own in one throwaway cluster (fsync and
 * synchronous_commit on) filled with the same animals. Rounds interleave the
 * two servers on each scenario (the order alternates every round); a
 * scenario's ratios are the medians of its rounds' ratios. Servers pinned to
 * core 0, wrk to core 1 when `taskset` can; PostgreSQL runs where it may.
 * Each side's CPU per request is reported twice: its server's processes', and
 * its database's backends' (from `/proc`).
 *
 *   pnpm bench:postgres [--check] [--rounds N] [--seconds N] [--connections N] [--pets N] [--only <scenario>]
 *   pnpm bench:postgres --ceiling [--pools 2,5,10,20]   one key's requests per second by pool size
 *
 * Prints a table and writes bench/results/postgres.json (or postgres-ceiling.json).
 */
import * as Esbuild from "esbuild"
import { randomBytes } from "node:crypto"
import * as Fs from "node:fs"
import { createRequire } from "node:module"
import * as Os from "node:os"
import * as Path from "node:path"
import { parseArgs } from "node:util"
import * as PgCluster from "../packages/postgres-store/test/support/PgCluster.js"
import { random } from "./dataset.js"
import type { HttpScenario, LoadPlan } from "./httpScenarios.js"
import { expectedStatus, httpScenarios, requestOf, statuses } from "./httpScenarios.js"
import * as SealedCursors from "./sealedCursors.js"
import type { Started } from "./serverProcess.js"
import { canPin, cpuSeconds, freePort, root, serveCommand, serverCpuSeconds, start, stop, waitReady } from "./serverProcess.js"
import { runWorkers, workersMissed, workersStoreLines, workersTable } from "./workers.js"
import { requireWrk, runWrk } from "./wrk.js"

const { values: flags } = parseArgs({
  allowNegative: true,
  options: {
    check: { type: "boolean", default: false },
    ceiling: { type: "boolean", default: false },
    pools: { type: "string", default: "2,5,10,20" },
    rounds: { type: "string", default: "7" },
    seconds: { type: "string", default: "2" },
    warmup: { type: "string", default: "2" },
    connections: { type: "string", default: "64" },
    pets: { type: "string", default: "10000" },
    pool: { type: "string", default: "10" },
    only: { type: "string" },
    workers: { type: "boolean", default: true }
  }
})
const rounds = Number(flags.rounds)
const seconds = Number(flags.seconds)
const warmupSeconds = Number(flags.warmup)
const connections = Number(flags.connections)
const pets = Number(flags.pets)
const scenarios = httpScenarios.filter((scenario) => flags.only === undefined || scenario.includes(flags.only))
const unlimited = "1000000000"
const key = "ask_live_benchmarkkey0000000000"
const cursorSecret = randomBytes(32).toString("hex")
const pinned = canPin()
const log = (line: string) => process.stderr.write(`${line}\n`)
/** The one-minute load average, for the report: other work on the machine moves the figures. */
const loadAverage = () => Os.loadavg()[0]!.toFixed(1)
const loadAtStart = loadAverage()

/** The reference compiled as a deployed service runs: JavaScript, `pg` bundled in, plain `node`. */
const compileReference = async (): Promise<string> => {
  const outfile = Path.join(root, ".bench", "references", "pg-server.mjs")
  const pg = Path.dirname(createRequire(Path.join(root, "packages/postgres-store/package.json")).resolve("pg/package.json"))
  await Esbuild.build({
    absWorkingDir: root,
    entryPoints: ["bench/references/pg-server.ts"],
    outfile,
    bundle: true,
    alias: { pg },
    external: ["pg-native"],
    platform: "node",
    format: "esm",
    target: "node20",
    // `pg` is CommonJS: its requires of node's modules need a `require` in the ES module.
    banner: { js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);" },
    logLevel: "error"
  })
  return outfile
}

type Side = "ours" | "reference"

interface Running {
  readonly side: Side
  readonly started: Started
  readonly origin: string
  /** The database it runs on, in the bench's cluster. */
  readonly database: string
}

/**
 * The CPU seconds each backend of `database` has used (PostgreSQL names a backend's process
 * `postgres: <user> <database> <client> <state>`), by pid.
 */
const backendCpu = (database: string): Map<number, number> => {
  const found = new Map<number, number>()
  for (const entry of Fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue
    try {
      const title = Fs.readFileSync(`/proc/${entry}/cmdline`, "utf8").replaceAll("\0", " ")
      if (title.startsWith("postgres: ") && title.split(" ")[2] === database) found.set(Number(entry), cpuSeconds(Number(entry)))
    } catch {
      // gone meanwhile
    }
  }
  return found
}

/** The CPU seconds `database`'s backends used from `before` (a `backendCpu`) until now; backends gone since are not counted. */
const backendCpuSince = (database: string, before: Map<number, number>): number =>
  [...backendCpu(database)].reduce((sum, [pid, seconds]) => sum + seconds - (before.get(pid) ?? 0), 0)

const logFile = (name: string) => {
  Fs.mkdirSync(Path.join(root, ".bench"), { recursive: true })
  return Path.join(root, ".bench", `${name}.log`)
}

const startOurs = async (store: string, poolSize: number): Promise<Running> => {
  const port = await freePort()
  const started = start(
    serveCommand(port, store, ["--anonymous-per-minute", unlimited, "--pool-size", String(poolSize)]),
    {
      core: pinned ? 0 : undefined,
      env: { ANIMAL_STORE_API_KEYS: `${key}:enterprise:${unlimited}:${unlimited}`, ANIMAL_STORE_CURSOR_SECRET: cursorSecret },
      logFile: logFile("postgres-ours")
    }
  )
  const origin = `http://127.0.0.1:${port}`
  await waitReady("the server", started, `${origin}/healthz`)
  return { side: "ours", started, origin, database: new URL(store).pathname.slice(1) }
}

const startReference = async (script: string, url: string, poolSize: number): Promise<Running> => {
  const port = await freePort()
  const started = start(
    ["node", script, "--port", String(port), "--url", url, "--anonymous-per-minute", unlimited, "--pool", String(poolSize)],
    {
      core: pinned ? 0 : undefined,
      env: { PG_REFERENCE_API_KEYS: `${key}:enterprise:${unlimited}:${unlimited}`, ANIMAL_STORE_CURSOR_SECRET: cursorSecret },
      logFile: logFile("postgres-reference")
    }
  )
  const origin = `http://127.0.0.1:${port}`
  await waitReady("the reference", started, `${origin}/v1/nothing`)
  return { side: "reference", started, origin, database: new URL(url).pathname.slice(1) }
}

interface Measure {
  readonly requestsPerSecond: number
  readonly latencyP99Ms: number
  readonly cpuMicrosPerRequest: number
  /** CPU time of the server's PostgreSQL backends per request. */
  readonly databaseCpuMicrosPerRequest: number
  readonly unexpected: number
}

const measure = async (server: Running, scenario: HttpScenario, plan: LoadPlan, duration: number): Promise<Measure> => {
  const pid = server.started.child.pid!
  const cpuBefore = serverCpuSeconds(pid)
  const databaseBefore = backendCpu(server.database)
  const result = await runWrk(server.origin, connections, duration, requestOf(scenario, plan))
  const cpu = serverCpuSeconds(pid) - cpuBefore
  const databaseCpu = backendCpuSince(server.database, databaseBefore)
  const unexpected = result.errors + Object.entries(result.statusCounts)
    .filter(([status]) => Number(status) !== expectedStatus[scenario])
    .reduce((sum, [, count]) => sum + count, 0)
  return {
    requestsPerSecond: result.requests / result.seconds,
    latencyP99Ms: result.latencyP99Ms,
    cpuMicrosPerRequest: (cpu / Math.max(1, result.requests)) * 1e6,
    databaseCpuMicrosPerRequest: (databaseCpu / Math.max(1, result.requests)) * 1e6,
    unexpected
  }
}

const median = (values: ReadonlyArray<number>): number => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.floor((sorted.length - 1) / 2)]!
}

const planOf = (): LoadPlan => {
  const next = random(pets)
  const cursors = SealedCursors.make(cursorSecret)
  return {
    connections,
    warmupSeconds,
    seconds,
    key,
    cursors: Array.from({ length: 1024 }, () => cursors.seal(1 + Math.floor(next() * pets * 0.9), undefined)),
    statusCursors: Array.from(
      { length: 1024 },
      (_, n) => cursors.seal(1 + Math.floor(next() * pets * 0.9), statuses[n % statuses.length])
    ),
    ids: Array.from({ length: 1024 }, () => 1 + Math.floor(next() * pets)),
    runs: []
  }
}

/** A database of the store's schema (made by the server's own migrations) holding `pets` animals. */
const filledDatabase = async (cluster: PgCluster.PgCluster, name: string): Promise<string> => {
  const url = await cluster.createDatabase(name)
  const once = await startOurs(url, 2)
  await stop(once.started)
  await cluster.query(
    `INSERT INTO pets (name, category_id, status)
     SELECT 'pet ' || n, 1 + n % 50, (ARRAY['available', 'pending', 'sold'])[1 + n % 3] FROM generate_series(1, $1) AS n`,
    [pets],
    name
  )
  await cluster.query("VACUUM ANALYZE pets", [], name)
  return url
}

const fmt = (n: number) => Math.round(n).toLocaleString("en")

requireWrk()
const reference = await compileReference()
const cluster = await PgCluster.start({ fsync: "on", synchronous_commit: "on", full_page_writes: "on", shared_buffers: "128MB" })
let failed = false
try {
  const ourUrl = await filledDatabase(cluster, "ours")
  const referenceUrl = await filledDatabase(cluster, "reference")
  const plan = planOf()
  const header = `PostgreSQL 15, ${pets.toLocaleString("en")} pets, ${connections} connections, ${Os.availableParallelism()} cores` +
    `${pinned ? " (servers on core 0, wrk on core 1)" : ""}`

  if (flags.ceiling) {
    // One key, one process: getPet, by pool size; every request of the run counts on the key's row.
    const rows: Array<Record<string, number>> = []
    for (const poolSize of flags.pools.split(",").map(Number)) {
      const servers = [await startOurs(ourUrl, poolSize), await startReference(reference, referenceUrl, poolSize)]
      try {
        for (const server of servers) await measure(server, "getPet", plan, warmupSeconds)
        const perRound: Array<Record<Side, Measure>> = []
        for (let round = 0; round < rounds; round++) {
          const order = round % 2 === 0 ? servers : [...servers].reverse()
          const measured = {} as Record<Side, Measure>
          for (const server of order) measured[server.side] = await measure(server, "getPet", plan, seconds)
          perRound.push(measured)
        }
        const row = {
          poolSize,
          ours: median(perRound.map((r) => r.ours.requestsPerSecond)),
          reference: median(perRound.map((r) => r.reference.requestsPerSecond)),
          oursCpu: median(perRound.map((r) => r.ours.cpuMicrosPerRequest)),
          referenceCpu: median(perRound.map((r) => r.reference.cpuMicrosPerRequest))
        }
        rows.push(row)
        log(JSON.stringify(row))
      } finally {
        for (const server of servers) await stop(server.started)
      }
    }
    console.log(`${header}, one key, getPet, median of ${rounds} rounds of ${seconds} s\n`)
    console.log("| pool size | this server req/s | server CPU µs/req | reference req/s | reference CPU µs/req |")
    console.log("|--:|--:|--:|--:|--:|")
    for (const row of rows) {
      console.log(`| ${row.poolSize} | ${fmt(row.ours!)} | ${fmt(row.oursCpu!)} | ${fmt(row.reference!)} | ${fmt(row.referenceCpu!)} |`)
    }
    Fs.mkdirSync(Path.join(root, "bench/results"), { recursive: true })
    Fs.writeFileSync(Path.join(root, "bench/results/postgres-ceiling.json"), JSON.stringify({ pets, connections, rows }, null, 2))
  } else {
    const pool = Number(flags.pool)
    const servers = [await startOurs(ourUrl, pool), await startReference(reference, referenceUrl, pool)]
    const perRound = new Map<HttpScenario, Array<Record<Side, Measure>>>(scenarios.map((s) => [s, []]))
    try {
      for (const scenario of scenarios) for (const server of servers) await measure(server, scenario, plan, warmupSeconds)
      for (let round = 0; round < rounds; round++) {
        for (const [i, scenario] of scenarios.entries()) {
          const order = (round + i) % 2 === 0 ? servers : [...servers].reverse()
          const measured = {} as Record<Side, Measure>
          for (const server of order) measured[server.side] = await measure(server, scenario, plan, seconds)
          perRound.get(scenario)!.push(measured)
          log(`round ${round + 1} ${scenario}: ${(measured.ours.requestsPerSecond / measured.reference.requestsPerSecond).toFixed(2)}x`)
        }
      }
    } finally {
      for (const server of servers) await stop(server.started)
    }
    const missed: Array<string> = []
    const results = scenarios.map((scenario) => {
      const all = perRound.get(scenario)!
      const ratio = median(all.map((r) => r.ours.requestsPerSecond / r.reference.requestsPerSecond))
      const p99Ratio = median(all.map((r) => r.ours.latencyP99Ms / r.reference.latencyP99Ms))
      const side = (s: Side) => ({
        requestsPerSecond: median(all.map((r) => r[s].requestsPerSecond)),
        latencyP99Ms: median(all.map((r) => r[s].latencyP99Ms)),
        cpuMicrosPerRequest: median(all.map((r) => r[s].cpuMicrosPerRequest)),
        databaseCpuMicrosPerRequest: median(all.map((r) => r[s].databaseCpuMicrosPerRequest)),
        unexpected: all.reduce((sum, r) => sum + r[s].unexpected, 0)
      })
      if (ratio < 1.0) missed.push(`${scenario}: throughput ${ratio.toFixed(2)}x the reference (at least 1.0x)`)
      if (p99Ratio > 1.5) missed.push(`${scenario}: p99 ${p99Ratio.toFixed(2)}x the reference (at most 1.5x)`)
      for (const s of ["ours", "reference"] as const) {
        if (side(s).unexpected > 0) missed.push(`${scenario}: ${side(s).unexpected} unexpected responses (${s})`)
      }
      return { scenario, ratio, p99Ratio, ours: side("ours"), reference: side("reference") }
    })
    console.log(
      `${header}, median of ${rounds} interleaved rounds of ${seconds} s, pool ${pool}, load average ${loadAtStart} at the start, ${loadAverage()} at the end\n`
    )
    console.log("| scenario | this server | reference (node:http + pg) | throughput | p99 |")
    console.log("|---|--:|--:|--:|--:|")
    for (const r of results) {
      const cell = (m: typeof r.ours) => `${fmt(m.requestsPerSecond)} req/s, p99 ${fmt(m.latencyP99Ms)} ms, CPU/req ${fmt(m.cpuMicrosPerRequest)} µs + database ${
          fmt(m.databaseCpuMicrosPerRequest)
        } µs`
      console.log(`| ${r.scenario} | ${cell(r.ours)} | ${cell(r.reference)} | ${r.ratio.toFixed(2)}x | ${r.p99Ratio.toFixed(2)}x |`)
    }
    for (const line of missed) console.log(`missed: ${line}`)
    Fs.mkdirSync(Path.join(root, "bench/results"), { recursive: true })
    Fs.writeFileSync(
      Path.join(root, "bench/results/postgres.json"),
      JSON.stringify({ pets, connections, rounds, seconds, pool, loadAverage: [loadAtStart, loadAverage()], results, missed }, null, 2)
    )
    failed = flags.check && missed.length > 0
  }
} finally {
  await cluster.destroy()
}
// One worker against two, on PostgreSQL and on SQLite (`workers.ts`); `--no-workers` skips it.
if (flags.workers && flags.only === undefined && !flags.ceiling) {
  const report = await runWorkers(
    { stores: ["postgres", "sqlite"], pets: 100_000, connections: 32, warmupSeconds: 3, seconds, rounds: 3 },
    (line) => process.stderr.write(`${line}\n`)
  )
  const missed = workersMissed(report)
  console.log(`\nOne worker against two (--workers), ${report.cores} cores\n${workersTable(report)}\n\n${workersStoreLines(report).join("\n")}`)
  for (const line of missed) console.log(`missed: ${line}`)
  failed = failed || (flags.check && missed.length > 0)
}
if (failed) process.exit(1)
