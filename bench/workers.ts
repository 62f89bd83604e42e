/**
 * `pnpm bench:workers`: the standalone server as shipped (the bundled bin,
 * access log on) with one worker and with two (`serve --workers 2`), on
 * SQLite and on PostgreSQL (a throwaway cluster, durable settings), the five
 * HTTP scenarios under wrk (`load.ts`), in rounds alternating the two servers
 * (each on its own copy of the data). Unpinned: two workers need both cores,
 * which wrk and PostgreSQL share. Reported: throughput, p99, and the server's
 * CPU per request summed over all its processes (the supervisor and its
 * workers), and how the workers shared that CPU. Target: CPU per request
 * grows at most 15% from one worker to two (the median of the rounds' ratios).
 *
 *   pnpm bench:workers [--stores sqlite,postgres] [--seconds 3] [--rounds 3] [--warmup 3]
 *                      [--connections 32] [--pets 100000] [--check]
 *
 * One table on stdout (progress on stderr), everything in `bench/results/workers.json`.
 */
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"
import { parseArgs } from "node:util"
import * as PgCluster from "../packages/postgres-store/test/support/PgCluster.js"
import { checkServed, fillThroughServer } from "./dataset.js"
import { benchKey, cursorSecret, medianBy, requestsOf, unlimited } from "./http.js"
import type { HttpScenario, LoadLine, LoadPlan, Server } from "./httpScenarios.js"
import { httpScenarios, roundsOf } from "./httpScenarios.js"
import type { Started } from "./serverProcess.js"
import { bin, childrenOf, cpuSeconds, exited, freePort, root, serveCommand, start, stop, waitReady } from "./serverProcess.js"
import { requireWrk } from "./wrk.js"

export type WorkersStore = "sqlite" | "postgres"

export interface WorkersOptions {
  readonly stores: ReadonlyArray<WorkersStore>
  readonly pets: number
  readonly connections: number
  readonly warmupSeconds: number
  readonly seconds: number
  readonly rounds: number
}

/** One measured run of a server. */
export interface WorkersMeasure {
  readonly requestsPerSecond: number
  readonly latencyP99Ms: number
  /** Server CPU time (user + system, every process of the server) per request, in µs. */
  readonly serverCpuMicrosPerRequest: number
  /** Each worker's part of the workers' CPU time over the run (one worker: `[1]`). */
  readonly workerShares: ReadonlyArray<number>
  /** The supervisor's part of the server's CPU time (one worker: 0, there is none). */
  readonly supervisorShare: number
  readonly unexpected: number
}

export interface WorkersResult {
  readonly store: WorkersStore
  readonly scenario: HttpScenario
  /** The runs of the round of the median `cpuRatio`. */
  readonly one: WorkersMeasure
  readonly two: WorkersMeasure
  /** Two workers / one, in CPU per request: the median over the rounds. */
  readonly cpuRatio: number
  /** Two workers / one, in requests per second, in the same round. */
  readonly throughputRatio: number
  readonly cpuRoundRatios: ReadonlyArray<number>
}

/** The SQLite store's lock waits over a server's whole run, from its `/metrics`. */
export interface LockWaits {
  /** Port calls refused by another process's lock, which then waited. */
  readonly waits: number
  readonly totalSeconds: number
  /** The upper bound of the histogram bucket holding the 99th percentile of the waits (0 when none waited). */
  readonly p99AtMostSeconds: number
}

/** A key with a small limit per minute, hammered through every worker at once. */
export interface Exactness {
  readonly limit: number
  readonly sent: number
  readonly accepted: number
  readonly refused: number
  readonly other: number
}

export interface WorkersStoreReport {
  readonly store: WorkersStore
  /** The server with two workers, on SQLite. */
  readonly lockWaits?: LockWaits | undefined
  /** On the server with two workers. */
  readonly exactness: Exactness
}

export interface WorkersReport {
  readonly options: WorkersOptions
  readonly cores: number
  /** The one-minute load average at the start and at the end: other work on the machine moves the figures. */
  readonly loadAverage: readonly [number, number]
  readonly results: ReadonlyArray<WorkersResult>
  readonly stores: ReadonlyArray<WorkersStoreReport>
}

/** The longest lock wait the 99th percentile may reach (on SQLite with two workers). */
export const lockWaitTargetSeconds = 0.05

/** The lock-wait histogram of a server's `/metrics` text (summed over its workers). */
export const lockWaitsOf = (text: string): LockWaits | undefined => {
  const name = "animal_store_sqlite_lock_wait_seconds"
  const buckets: Array<readonly [number, number]> = []
  let waits: number | undefined
  let totalSeconds = 0
  for (const line of text.split("\n")) {
    const bucket = new RegExp(`^${name}_bucket\\{le="([^"]+)"\\} (\\S+)$`).exec(line)
    if (bucket !== null) buckets.push([bucket[1] === "+Inf" ? Infinity : Number(bucket[1]), Number(bucket[2])])
    if (line.startsWith(`${name}_count `)) waits = Number(line.slice(name.length + 7))
    if (line.startsWith(`${name}_sum `)) totalSeconds = Number(line.slice(name.length + 5))
  }
  if (waits === undefined) return undefined
  buckets.sort(([a], [b]) => a - b)
  const p99 = waits === 0 ? 0 : buckets.find(([, count]) => count >= 0.99 * waits!)?.[0] ?? Infinity
  return { waits, totalSeconds, p99AtMostSeconds: p99 }
}

/** Waits until at least `seconds` are left in the current UTC minute (a key's minute window). */
const awayFromMinuteEnd = async (seconds: number) => {
  const left = 60_000 - (Date.now() % 60_000)
  if (left < seconds * 1000) await new Promise((resolve) => setTimeout(resolve, left + 100))
}

/**
 * Sends `sent` requests with `key` (a limit of `limit` a minute), 16 at a time on connections of
 * their own, so every worker counts some: exact limits accept `limit` of them and refuse the rest.
 */
const checkExact = async (origin: string, key: string, limit: number, sent: number): Promise<Exactness> => {
  await awayFromMinuteEnd(20)
  const statuses: Array<number> = []
  let next = 0
  await Promise.all(Array.from({ length: 16 }, async () => {
    while (next < sent) {
      next++
      const response = await fetch(`${origin}/v1/pets/1`, { headers: { authorization: `Bearer ${key}` } })
      await response.arrayBuffer()
      statuses.push(response.status)
    }
  }))
  const accepted = statuses.filter((status) => status === 200).length
  const refused = statuses.filter((status) => status === 429).length
  return { limit, sent, accepted, refused, other: statuses.length - accepted - refused }
}

/** The largest growth of CPU per request from one worker to two that meets the target. */
export const cpuGrowthTarget = 1.15

/** The two servers of a store; the load process echoes a run's label, and these two stand for one and two workers. */
const labels = { 1: "ours", 2: "baseline" } as const satisfies Record<1 | 2, Server>

/** CPU seconds of a server: its own and its workers', each worker's apart. */
const serverCpu = (pid: number): { readonly own: number; readonly total: number; readonly workers: ReadonlyMap<number, number> } => {
  const workers = new Map(childrenOf(pid).map((child) => [child, cpuSeconds(child)] as const))
  const own = cpuSeconds(pid)
  return { own, total: own + [...workers.values()].reduce((sum, cpu) => sum + cpu, 0), workers }
}

/** Runs `plan` in the load process (unpinned), sampling each server's CPU around each measured run. */
const runLoad = async (plan: LoadPlan, pids: Record<1 | 2, number>): Promise<Array<{ workers: 1 | 2; scenario: HttpScenario } & WorkersMeasure>> => {
  const started = start(["node", "--import", "tsx", "bench/load.ts"], { env: { BENCH_LOAD_PLAN: JSON.stringify(plan) } })
  const measures: Array<{ workers: 1 | 2; scenario: HttpScenario } & WorkersMeasure> = []
  let pending = ""
  let before = serverCpu(pids[1])
  started.child.stdout!.on("data", (chunk: Buffer) => {
    pending += chunk.toString("utf8")
    let newline: number
    while ((newline = pending.indexOf("\n")) !== -1) {
      const line = JSON.parse(pending.slice(0, newline)) as LoadLine
      pending = pending.slice(newline + 1)
      const workers = line.server === labels[1] ? 1 : 2
      const now = serverCpu(pids[workers])
      if (line.event === "start") {
        before = now
      } else {
        const perWorker = workers === 1
          ? [1]
          : [...now.workers].map(([child, cpu]) => cpu - (before.workers.get(child) ?? 0))
        const workersCpu = perWorker.reduce((sum, cpu) => sum + cpu, 0)
        measures.push({
          workers,
          scenario: line.scenario,
          requestsPerSecond: line.requestsPerSecond,
          latencyP99Ms: line.latencyP99Ms,
          serverCpuMicrosPerRequest: ((now.total - before.total) * 1e6) / Math.max(1, line.requests),
          workerShares: perWorker.map((cpu) => workersCpu > 0 ? cpu / workersCpu : 0),
          supervisorShare: workers === 1 ? 0 : (now.own - before.own) / Math.max(1e-9, now.total - before.total),
          unexpected: line.unexpected
        })
      }
    }
  })
  await exited(started.child)
  if (started.child.exitCode !== 0) throw new Error(`The load generator failed:\n${started.output()}`)
  return measures
}

/** Waits until a server with `workers` workers says they all listen. */
const waitWorkers = async (name: string, server: Started, workers: number) => {
  if (workers === 1) return
  for (const deadline = Date.now() + 60_000; !server.output().includes(`serving with ${workers} workers`);) {
    if (Date.now() > deadline || server.child.exitCode !== null) throw new Error(`${name} did not start its workers:\n${server.output()}`)
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

/** A store with `pets` animals, twice (one copy per server), and how to remove it. */
const prepareStore = async (
  store: WorkersStore,
  folder: string,
  pets: number,
  log: (line: string) => void
): Promise<{ readonly urls: Record<1 | 2, string>; readonly destroy: () => Promise<void> }> => {
  if (store === "sqlite") {
    const [one, two] = [Path.join(folder, "one.db"), Path.join(folder, "two.db")]
    await fillThroughServer(root, one, pets)
    Fs.copyFileSync(one, two)
    return { urls: { 1: `sqlite:${one}`, 2: `sqlite:${two}` }, destroy: async () => {} }
  }
  log("  starting a throwaway PostgreSQL cluster")
  const cluster = await PgCluster.start({ fsync: "on", synchronous_commit: "on", full_page_writes: "on", shared_buffers: "128MB" })
  try {
    const url = await cluster.createDatabase("bench_one")
    // The server migrates the database as it starts; then the animals go in in one statement.
    const port = await freePort()
    const migrating = start(serveCommand(port, url))
    await waitReady("The server migrating PostgreSQL", migrating, `http://127.0.0.1:${port}/v1/pets`)
    await stop(migrating)
    await cluster.query(
      `INSERT INTO pets (name, category_id, status)
       SELECT 'pet ' || n, 1 + n % 50, (ARRAY['available', 'pending', 'sold'])[1 + n % 3] FROM generate_series(1, $1) AS n`,
      [pets],
      "bench_one"
    )
    await cluster.query("VACUUM ANALYZE pets", [], "bench_one")
    await cluster.query("CREATE DATABASE bench_two TEMPLATE bench_one")
    return { urls: { 1: url, 2: cluster.urlOf("bench_two") }, destroy: () => cluster.destroy() }
  } catch (error) {
    await cluster.destroy()
    throw error
  }
}

/** Runs the benchmark on each store of `options`. */
export const runWorkers = async (options: WorkersOptions, log: (line: string) => void): Promise<WorkersReport> => {
  requireWrk()
  if (!Fs.existsSync(Path.join(root, bin))) throw new Error(`${bin} is missing: run pnpm build first`)
  const loadAtStart = Os.loadavg()[0]!
  const results: Array<WorkersResult> = []
  const stores: Array<WorkersStoreReport> = []
  for (const store of options.stores) {
    log(`${store}: ${options.pets.toLocaleString("en-US")} animals, one worker and two`)
    const folder = Fs.mkdtempSync(Path.join(Os.tmpdir(), "animal-store-bench-workers-"))
    const prepared = await prepareStore(store, folder, options.pets, log)
    const servers: Array<Started> = []
    try {
      const { key, keyEntry } = benchKey()
      const exact = { key: benchKey().key, limit: 300 }
      const ports = { 1: await freePort(), 2: await freePort() }
      const opsPorts = { 1: await freePort(), 2: await freePort() }
      const started = {} as Record<1 | 2, Started>
      for (const workers of [1, 2] as const) {
        started[workers] = start(
          serveCommand(ports[workers], prepared.urls[workers], [
            "--anonymous-per-minute",
            String(unlimited),
            "--workers",
            String(workers),
            "--ops-port",
            String(opsPorts[workers])
          ]),
          {
            env: {
              ANIMAL_STORE_API_KEYS: `${keyEntry},${exact.key}:enterprise:${exact.limit}:${unlimited}`,
              ANIMAL_STORE_CURSOR_SECRET: cursorSecret
            },
            logFile: Path.join(folder, `server-${workers}.log`)
          }
        )
        servers.push(started[workers])
      }
      const urls = { [labels[1]]: `http://127.0.0.1:${ports[1]}`, [labels[2]]: `http://127.0.0.1:${ports[2]}` }
      for (const workers of [1, 2] as const) {
        const name = `The server with ${workers} worker(s) on ${store}`
        await waitReady(name, started[workers], `${urls[labels[workers]]}/v1/pets`)
        await waitWorkers(name, started[workers], workers)
        await checkServed(name, urls[labels[workers]]!, key, options.pets)
      }
      const plan: LoadPlan = {
        ...requestsOf(options.pets, options, key),
        runs: roundsOf(options.rounds, () => [labels[1], labels[2]], urls)
      }
      const measures = await runLoad(plan, { 1: started[1].child.pid!, 2: started[2].child.pid! })
      for (const workers of [1, 2] as const) {
        if (started[workers].child.exitCode !== null) {
          throw new Error(`The server with ${workers} worker(s) exited during the run:\n${started[workers].output()}`)
        }
      }
      const lockWaits = store === "sqlite"
        ? lockWaitsOf(await (await fetch(`http://127.0.0.1:${opsPorts[2]}/metrics`)).text())
        : undefined
      if (store === "sqlite" && lockWaits === undefined) throw new Error("The SQLite server's /metrics has no lock-wait histogram")
      const exactness = await checkExact(urls[labels[2]]!, exact.key, exact.limit, Math.round(exact.limit * 1.5))
      stores.push({ store, lockWaits, exactness })
      log(`  limits with two workers: ${exactness.accepted} of ${exactness.sent} accepted, limit ${exactness.limit}` +
        (lockWaits === undefined ? "" : `; lock waits: ${lockWaits.waits}, p99 at most ${lockWaits.p99AtMostSeconds * 1000} ms`))
      for (const scenario of httpScenarios) {
        const of = (workers: 1 | 2) => measures.filter((m) => m.scenario === scenario && m.workers === workers)
        const [one, two] = [of(1), of(2)]
        if (one.length !== options.rounds || two.length !== options.rounds) throw new Error(`Missing results for ${scenario}`)
        const rounds = one.map((o, round) => ({
          one: o,
          two: two[round]!,
          cpuRatio: two[round]!.serverCpuMicrosPerRequest / o.serverCpuMicrosPerRequest
        }))
        const median = medianBy(rounds, "cpuRatio")!
        const strip = ({ scenario: _, workers: __, ...measure }: (typeof one)[number]): WorkersMeasure => measure
        const result: WorkersResult = {
          store,
          scenario,
          one: strip(median.one),
          two: strip(median.two),
          cpuRatio: median.cpuRatio,
          throughputRatio: median.two.requestsPerSecond / median.one.requestsPerSecond,
          cpuRoundRatios: rounds.map(({ cpuRatio }) => cpuRatio)
        }
        results.push(result)
        log(`  ${scenario}: CPU/req 2/1 ${rounds.map(({ cpuRatio }) => cpuRatio.toFixed(2)).join(" ")}; ` +
          `req/s ${Math.round(result.one.requestsPerSecond)} -> ${Math.round(result.two.requestsPerSecond)}; ` +
          `worker shares ${result.two.workerShares.map((share) => share.toFixed(2)).join("/")}, ` +
          `supervisor ${(result.two.supervisorShare * 100).toFixed(1)}% of the CPU`)
      }
    } finally {
      await Promise.all(servers.map(stop))
      await prepared.destroy()
      Fs.rmSync(folder, { recursive: true, force: true })
    }
  }
  return { options, cores: Os.availableParallelism(), loadAverage: [loadAtStart, Os.loadavg()[0]!], results, stores }
}

/** The results that miss the target, as lines. */
export const workersMissed = (report: WorkersReport): ReadonlyArray<string> => [
  ...report.results.filter((result) => result.cpuRatio > cpuGrowthTarget).map((result) =>
    `${result.store} ${result.scenario}: CPU per request ${result.cpuRatio.toFixed(2)}x from one worker to two (target at most ${cpuGrowthTarget}x)`
  ),
  ...report.stores.flatMap(({ exactness: e, lockWaits, store }) => [
    ...(e.accepted !== e.limit || e.refused !== e.sent - e.limit
      ? [`${store}: two workers accepted ${e.accepted} and refused ${e.refused} of ${e.sent} requests of a key limited to ${e.limit} a minute (${e.other} other)`]
      : []),
    ...(lockWaits !== undefined && lockWaits.p99AtMostSeconds > lockWaitTargetSeconds
      ? [`${store}: p99 of the lock waits at most ${lockWaits.p99AtMostSeconds * 1000} ms (target at most ${lockWaitTargetSeconds * 1000} ms)`]
      : [])
  ])
]

/** Each store's exactness and lock waits, as lines. */
export const workersStoreLines = (report: WorkersReport): ReadonlyArray<string> =>
  report.stores.map(({ exactness: e, lockWaits, store }) =>
    `${store}, two workers: a key limited to ${e.limit} a minute, ${e.sent} requests 16 at a time: ${e.accepted} accepted, ${e.refused} refused` +
    (e.other > 0 ? `, ${e.other} other` : "") +
    (lockWaits === undefined ? "" : lockWaits.waits === 0
      ? "; no port call waited for the other process's lock"
      : `; ${lockWaits.waits.toLocaleString("en-US")} port calls waited for the other process's lock, ` +
        `${(lockWaits.totalSeconds * 1000 / lockWaits.waits).toFixed(1)} ms on average, p99 at most ${lockWaits.p99AtMostSeconds * 1000} ms (target ${lockWaitTargetSeconds * 1000} ms)`)
  )

const cell = (measure: WorkersMeasure): string =>
  `${Math.round(measure.requestsPerSecond).toLocaleString("en-US")} req/s, p99 ${Math.round(measure.latencyP99Ms)} ms, ` +
  `${Math.round(measure.serverCpuMicrosPerRequest)} µs CPU/req${measure.unexpected > 0 ? `, ${measure.unexpected} unexpected` : ""}`

/** The report as a Markdown table. */
export const workersTable = (report: WorkersReport): string =>
  [
    "| store | scenario | 1 worker | 2 workers | CPU/req 2/1 | req/s 2/1 | workers' CPU shares | supervisor's CPU |",
    "|---|---|---|---|--:|--:|---|--:|",
    ...report.results.map((result) =>
      `| ${result.store} | ${result.scenario} | ${cell(result.one)} | ${cell(result.two)} | ` +
      `${result.cpuRatio.toFixed(2)}x${result.cpuRatio > cpuGrowthTarget ? " (missed)" : ""} | ` +
      `${result.throughputRatio.toFixed(2)}x | ${result.two.workerShares.map((share) => share.toFixed(2)).join(" / ")} | ` +
      `${(result.two.supervisorShare * 100).toFixed(1)}% |`
    )
  ].join("\n")

if (process.argv[1] !== undefined && Path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { values: flags } = parseArgs({
    options: {
      stores: { type: "string", default: "sqlite,postgres" },
      seconds: { type: "string", default: "3" },
      rounds: { type: "string", default: "3" },
      warmup: { type: "string", default: "3" },
      connections: { type: "string", default: "32" },
      pets: { type: "string", default: "100000" },
      check: { type: "boolean", default: false }
    }
  })
  const positive = (name: string, text: string): number => {
    const n = Number(text)
    if (!Number.isSafeInteger(n) || n < 1) throw new Error(`--${name} must be a positive integer`)
    return n
  }
  const stores = flags.stores.split(",").map((store) => {
    if (store !== "sqlite" && store !== "postgres") throw new Error("--stores takes sqlite, postgres or both")
    return store
  })
  const report = await runWorkers({
    stores,
    pets: positive("pets", flags.pets),
    connections: positive("connections", flags.connections),
    warmupSeconds: positive("warmup", flags.warmup),
    seconds: positive("seconds", flags.seconds),
    rounds: positive("rounds", flags.rounds)
  }, (line) => process.stderr.write(`${line}\n`))
  const missed = workersMissed(report)
  console.log(
    `${report.options.connections} connections, ${report.options.seconds} s a run, ${report.options.rounds} round(s), ` +
      `${report.cores} cores, unpinned, load average ${report.loadAverage.map((load) => load.toFixed(1)).join(" at the start, ")} at the end\n${workersTable(report)}\n\n${workersStoreLines(report).join("\n")}\n\n` +
      (missed.length === 0 ? "Every target met" : missed.map((line) => `missed: ${line}`).join("\n"))
  )
  Fs.mkdirSync(Path.join(root, "bench/results"), { recursive: true })
  Fs.writeFileSync(Path.join(root, "bench/results/workers.json"), JSON.stringify({ ...report, missed }, null, 2))
  if (flags.check && missed.length > 0) process.exitCode = 1
}
