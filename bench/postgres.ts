/**
 * Several servers on one PostgreSQL: the five HTTP scenarios against one
 * standalone server process, then against two processes sharing the
 * database (the load split between them), on a throwaway cluster (durable
 * settings: fsync and synchronous_commit on) filled with 100,000 animals.
 * Everything (PostgreSQL, the servers, wrk) shares this machine's
 * cores: the numbers show where the ceiling is, not a cluster's capacity.
 *
 *   pnpm bench:postgres [--seconds N] [--connections N] [--pets N]
 *
 * Prints one table and writes bench/results/postgres.json.
 */
import * as ChildProcess from "node:child_process"
import { randomBytes } from "node:crypto"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"
import * as PgCluster from "../packages/postgres-store/test/support/PgCluster.js"
import { random } from "./dataset.js"
import type { HttpScenario, LoadPlan } from "./httpScenarios.js"
import { expectedStatus, httpScenarios, requestOf, statuses } from "./httpScenarios.js"
import * as SealedCursors from "./sealedCursors.js"
import { bin as serverBin, cpuSeconds } from "./serverProcess.js"
import { requireWrk, runWrk } from "./wrk.js"

const root = Path.resolve(Path.dirname(fileURLToPath(import.meta.url)), "..")
const bin = Path.join(root, serverBin)

const flag = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`)
  return i === -1 ? fallback : Number(process.argv[i + 1])
}
const seconds = flag("seconds", 6)
const connections = flag("connections", 32)
const pets = flag("pets", 100_000)
const warmupSeconds = 2
/** The secret the servers seal listing cursors with, so the plan's cursors are theirs. */
const cursorSecret = randomBytes(32).toString("hex")

const fire = (url: string, scenario: HttpScenario, plan: LoadPlan, conns: number, duration: number) =>
  runWrk(url, conns, duration, requestOf(scenario, plan))

const startServer = (store: string, key: string) =>
  new Promise<ChildProcess.ChildProcess & { origin: string }>((resolve, reject) => {
    const child = ChildProcess.spawn(process.execPath, [bin, "serve", "--port", "0", "--store", store, "--anonymous-per-minute", "1000000000"], {
      env: {
        ...process.env,
        ANIMAL_STORE_API_KEYS: `${key}:enterprise:1000000000:1000000000`,
        ANIMAL_STORE_CURSOR_SECRET: cursorSecret
      }
    })
    // The access log is on, as shipped: once listening, its lines are drained, not kept.
    let output = ""
    const onData = (chunk: Buffer) => {
      output += chunk
      const match = /listening on (http:\/\/127\.0\.0\.1:\d+)\/v1/.exec(output)
      if (match) {
        child.stdout.off("data", onData)
        child.stdout.resume()
        resolve(Object.assign(child, { origin: match[1]! }))
      }
    }
    child.stdout.on("data", onData)
    child.stderr.on("data", (chunk) => (output += chunk))
    child.on("close", () => reject(new Error(`serve exited: ${output}`)))
  })

requireWrk()
if (!Fs.existsSync(bin)) throw new Error(`${bin} is missing: run pnpm build first`)
const cluster = await PgCluster.start({ fsync: "on", synchronous_commit: "on", full_page_writes: "on", shared_buffers: "128MB" })
const rows: Array<Record<string, unknown>> = []
try {
  const store = await cluster.createDatabase("bench")
  const key = "ask_live_benchmarkkey0000000000"
  // One server creates the schema, then the table is filled in one statement.
  const first = await startServer(store, key)
  first.kill("SIGTERM")
  await new Promise((resolve) => first.once("exit", resolve))
  await cluster.query(
    `INSERT INTO pets (name, category_id, status)
     SELECT 'pet ' || n, 1 + n % 50, (ARRAY['available', 'pending', 'sold'])[1 + n % 3] FROM generate_series(1, $1) AS n`,
    [pets],
    "bench"
  )
  await cluster.query("VACUUM ANALYZE pets", [], "bench")
  const next = random(pets)
  const cursors = SealedCursors.make(cursorSecret)
  const plan: LoadPlan = {
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
  for (const processes of [1, 2]) {
    const servers = await Promise.all(Array.from({ length: processes }, () => startServer(store, key)))
    try {
      for (const scenario of httpScenarios) {
        const per = Math.max(1, Math.floor(connections / processes))
        await Promise.all(servers.map((server) => fire(server.origin, scenario, plan, per, warmupSeconds)))
        const cpuBefore = servers.map((server) => cpuSeconds(server.pid!))
        const results = await Promise.all(servers.map((server) => fire(server.origin, scenario, plan, per, seconds)))
        const cpu = servers.reduce((sum, server, i) => sum + cpuSeconds(server.pid!) - cpuBefore[i]!, 0)
        const total = results.reduce((sum, result) => sum + result.requests, 0)
        const unexpected = results.reduce(
          (sum, result) =>
            sum + result.errors + Object.entries(result.statusCounts)
              .filter(([status]) => Number(status) !== expectedStatus[scenario])
              .reduce((s, [, count]) => s + count, 0),
          0
        )
        rows.push({
          processes,
          scenario,
          requestsPerSecond: Math.round(total / seconds),
          latencyP50Ms: Math.round(Math.max(...results.map((result) => result.latencyP50Ms))),
          latencyP99Ms: Math.round(Math.max(...results.map((result) => result.latencyP99Ms))),
          serverCpuMicrosPerRequest: Math.round((cpu / total) * 1e6),
          unexpected
        })
        process.stderr.write(`${JSON.stringify(rows.at(-1))}\n`)
      }
    } finally {
      for (const server of servers) server.kill("SIGKILL")
    }
  }
} finally {
  await cluster.destroy()
}

const table = [
  "| scenario | 1 process | 2 processes | 2 / 1 |",
  "|---|---|---|---|",
  ...httpScenarios.map((scenario) => {
    const [one, two] = [1, 2].map((processes) => rows.find((row) => row.processes === processes && row.scenario === scenario)!)
    const cell = (row: Record<string, unknown>) =>
      `${Number(row.requestsPerSecond).toLocaleString("en")} req/s, p99 ${row.latencyP99Ms} ms, ${row.serverCpuMicrosPerRequest} µs CPU/req${
        Number(row.unexpected) > 0 ? `, ${row.unexpected} unexpected` : ""
      }`
    return `| ${scenario} | ${cell(one!)} | ${cell(two!)} | ${(Number(two!.requestsPerSecond) / Number(one!.requestsPerSecond)).toFixed(2)}x |`
  })
].join("\n")
console.log(`PostgreSQL ${pets.toLocaleString("en")} pets, ${connections} connections, ${seconds} s per run, ${Os.availableParallelism()} cores\n${table}`)
Fs.mkdirSync(Path.join(root, "bench/results"), { recursive: true })
Fs.writeFileSync(Path.join(root, "bench/results/postgres.json"), JSON.stringify({ pets, connections, seconds, rows }, null, 2))
