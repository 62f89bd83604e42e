/**
 * `pnpm bench`: Animal Store beside hand-written floors.
 *
 * - In-process: `PetOperations` (listPets limit 20 and status + limit 100 from
 *   cursors spread over the table, createPet, getPet of random ids) on the
 *   memory and SQLite stores with 10,000 and 1,000,000 pets, beside the same
 *   query on better-sqlite3 alone. Ops/s and µs per op in CPU time.
 * - HTTP on loopback: the standalone server (SQLite store, 1,000,000 pets, an
 *   enterprise key that never trips) beside `floor-server.ts` (node:http +
 *   better-sqlite3, same routes and rules), the same four operations and the
 *   401 path, 64 connections, servers on core 0 and wrk on core 1,
 *   in rounds (each scenario on both servers back to back; the ratio is the
 *   median of the rounds'): req/s, p50, p99, and the server's peak RSS.
 * - Idempotency-Key: the server's CPU per createPet with a new key against
 *   one without (`idempotency.ts`), target at most 1.2x.
 * - A/B (`--baseline <commit-ish>`, alone): the standalone server built from
 *   that commit beside today's build and the Fastify reference, the same HTTP
 *   scenarios interleaved in the same rounds (`ab.ts`, `baseline.ts`).
 *
 * One table on stdout (progress on stderr), everything in
 * `bench/results/latest.json` (`bench/results/ab.json` for A/B).
 *
 *   pnpm bench [--only inprocess|http|idempotency] [--seconds 1] [--rounds 15] [--warmup 2] [--sizes 10000,1000000]
 *              [--http-pets 1000000] [--out bench/results/latest.json] [--check]
 *   pnpm bench --baseline <commit-ish> [--seconds 1] [--rounds 15] [--warmup 2] [--http-pets 1000000]
 *              [--out bench/results/ab.json] [--check]
 *
 * `--check` exits 1 when a target is missed.
 */
import { spawnSync } from "node:child_process"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { parseArgs } from "node:util"
import { runAb } from "./ab.js"
import { checkTodayBuilt, prepareBaseline, todayCommit } from "./baseline.js"
import type { HttpOptions, HttpReport } from "./http.js"
import { runHttp } from "./http.js"
import type { InProcessResult, SizeInfo } from "./inProcess.js"
import { runSize } from "./inProcess.js"
import type { Row } from "./report.js"
import type { IdempotencyResult } from "./report.js"
import { abMissed, abTable, facadeRows, httpRows, idempotencyRow, inProcessRows, inProcessTarget, table, targets } from "./report.js"
import type { FacadeResult } from "./facade.js"
import { runFacade } from "./facade.js"
import { root } from "./serverProcess.js"
import { requireWrk } from "./wrk.js"


const { values: flags } = parseArgs({
  options: {
    only: { type: "string" },
    seconds: { type: "string", default: "1" },
    rounds: { type: "string", default: "15" },
    warmup: { type: "string", default: "2" },
    sizes: { type: "string", default: "10000,1000000" },
    "http-pets": { type: "string", default: "1000000" },
    out: { type: "string" },
    check: { type: "boolean", default: false },
    baseline: { type: "string" }
  }
})
if (flags.only !== undefined && !["inprocess", "http", "idempotency", "telemetry"].includes(flags.only)) {
  throw new Error("--only is inprocess, http, idempotency or telemetry")
}
if (flags.baseline !== undefined && flags.only !== undefined) throw new Error("--baseline runs alone: drop --only")
if (flags.baseline?.startsWith("-")) throw new Error("--baseline takes a commit-ish")
const out = flags.out ?? Path.join(root, flags.baseline === undefined ? "bench/results/latest.json" : "bench/results/ab.json")
const positive = (name: string, text: string): number => {
  const n = Number(text)
  if (!Number.isSafeInteger(n) || n < 1) throw new Error(`--${name} must be a positive integer`)
  return n
}
const sizes = flags.sizes.split(",").map((size) => positive("sizes", size))
const httpOptions: HttpOptions = {
  pets: positive("http-pets", flags["http-pets"]),
  connections: 64,
  warmupSeconds: positive("warmup", flags.warmup),
  seconds: positive("seconds", flags.seconds),
  rounds: positive("rounds", flags.rounds)
}

const log = (line: string) => process.stderr.write(line + "\n")
const started = Date.now()
const loadAverageAtStart = Os.loadavg()

const machine = () => ({
  cpu: Os.cpus()[0]?.model,
  cores: Os.availableParallelism(),
  memoryGb: Os.totalmem() / 2 ** 30,
  node: process.version,
  loadAverageAtStart,
  loadAverageAtEnd: Os.loadavg()
})

/** Writes `results` to `out`, prints `tableText` and the summary line; exits 1 on a miss under `--check`. */
const finish = (results: { readonly machine: ReturnType<typeof machine> }, tableText: string, missed: ReadonlyArray<string>) => {
  Fs.mkdirSync(Path.dirname(out), { recursive: true })
  Fs.writeFileSync(out, JSON.stringify(results, null, 2) + "\n")
  console.log(tableText)
  console.log(
    `\n${missed.length === 0 ? "Every target met" : `${missed.length} target(s) missed`}; ` +
      `load average ${loadAverageAtStart.map((n) => n.toFixed(1)).join(" ")} at start, ` +
      `${results.machine.loadAverageAtEnd.map((n) => n.toFixed(1)).join(" ")} at end; ` +
      `${((Date.now() - started) / 1000).toFixed(0)} s; results in ${Path.relative(process.cwd(), out)}`
  )
  if (flags.check && missed.length > 0) process.exitCode = 1
}

const common = () => ({
  date: new Date(started).toISOString(),
  gitCommit: todayCommit(),
  command: ["pnpm bench", ...process.argv.slice(2)].join(" "),
  elapsedSeconds: (Date.now() - started) / 1000,
  machine: machine()
})

/** `--baseline`: today's server against the one built from `commitish`, and Fastify. */
const runBaseline = async (commitish: string) => {
  requireWrk()
  checkTodayBuilt(log)
  const baseline = prepareBaseline(commitish, log)
  const { connections, rounds, seconds, warmupSeconds } = httpOptions
  const today = todayCommit()
  log(`A/B: today (${today.slice(0, 10)}) against ${commitish} (${baseline.commit.slice(0, 10)}) and Fastify, ` +
    `${connections} connections, ${rounds} rounds of ${seconds} s per scenario and server after ${warmupSeconds} s of warm-up`)
  const report = await runAb(httpOptions, baseline, log)
  const missed = abMissed(report)
  const results = {
    ...common(),
    targets: {
      baselineRatio: targets.baselineRatio,
      fastifyRatio: targets.fastifyRatio,
      fastifyP99Ratio: targets.fastifyP99Ratio,
      baselineRssRatio: targets.baselineRssRatio
    },
    ab: { ...report, ...httpOptions },
    missed
  }
  finish(
    results,
    `HTTP ${report.pets.toLocaleString("en-US")} pets, today (${today.slice(0, 10)}) against ${commitish} ` +
      `(${baseline.commit.slice(0, 10)}), ${rounds} rounds of ${seconds} s\n\n${abTable(report)}` +
      missed.map((line) => `\nmissed: ${line}`).join(""),
    missed
  )
}

/** The in-process, HTTP and Idempotency-Key parts (those `--only` names). */
const runParts = async () => {
  const inProcessTiming = { warmupMs: 300, rounds: 5, roundMs: 200 }
  const sizeInfo: Array<SizeInfo> = []
  const inProcess: Array<InProcessResult> = []
  let facade: ReadonlyArray<FacadeResult> = []
  if (flags.only === undefined || flags.only === "inprocess") {
    log("In-process (PetOperations; floor: the same query on better-sqlite3 alone)")
    for (const pets of sizes) {
      const { info, results } = await runSize(pets, inProcessTiming, log)
      sizeInfo.push(info)
      inProcess.push(...results)
    }
    log("In-process facade (guarded.getPet on SQLite; plain: the same on better-sqlite3 alone)")
    facade = await runFacade({ rounds: 7, calls: 2_048 }, log)
  }

  // The HTTP and Idempotency-Key parts load the servers with wrk: installed first if it is missing.
  if (flags.only !== "inprocess") requireWrk()

  let http: HttpReport | undefined
  if (flags.only === undefined || flags.only === "http") {
    const { connections, rounds, seconds, warmupSeconds } = httpOptions
    log(`HTTP (${connections} connections, ${rounds} rounds of ${seconds} s per scenario and server after ${warmupSeconds} s of warm-up)`)
    http = await runHttp(httpOptions, log)
  }

  let idempotency: IdempotencyResult | undefined
  if (flags.only === undefined || flags.only === "idempotency") {
    log(`Idempotency-Key (${httpOptions.rounds} rounds of plain, keyed, keyed, plain, ${httpOptions.seconds} s each)`)
    idempotency = runJsonPart<IdempotencyResult>("bench/idempotency.ts")
  }

  const rows: Array<Row> = [
    ...inProcessRows(inProcess),
    ...facadeRows(facade),
    ...(http === undefined ? [] : httpRows(http)),
    ...(idempotency === undefined ? [] : [idempotencyRow(idempotency)])
  ]
  const missed = rows.filter((row) => row.met === false).map((row) => row.scenario)
  const results = {
    ...common(),
    targets,
    inProcess: {
      timing: { ...inProcessTiming, clock: "process CPU time (user + system)" },
      sizes: sizeInfo,
      results: inProcess.map((result) => ({ ...result, target: inProcessTarget(result) })),
      facade
    },
    http: http === undefined ? undefined : {
      ...http,
      ...httpOptions,
      results: http.results.map((result) => ({
        ...result,
        targets: { floor: targets.httpRatio, fastify: targets.fastifyRatio, fastifyP99: targets.fastifyP99Ratio }
      }))
    },
    idempotency,
    missed
  }
  finish(results, table(rows), missed)
}

/** Runs a part that prints its progress, then its result as the one JSON line (`--json`), with the HTTP rounds and seconds. */
const runJsonPart = <A>(script: string): A => {
  const child = spawnSync(
    "node",
    ["--import", "tsx", script, "--json", "--seconds", String(httpOptions.seconds), "--rounds", String(httpOptions.rounds)],
    { cwd: root, encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] }
  )
  const lines = child.stdout.trim().split("\n")
  for (const line of lines) if (!line.startsWith("{")) log(`  ${line}`)
  if (child.status !== 0) throw new Error(`${script} exited with ${child.status}`)
  return JSON.parse(lines.find((line) => line.startsWith("{"))!) as A
}

/** `--only telemetry`: the cost of metrics and tracing on (`telemetry.ts`); target metrics at most +5% CPU per request. */
const runTelemetry = () => {
  const telemetry = runJsonPart<{ metricsRatio: number; tracingRatio: number }>("bench/telemetry.ts")
  const missed = telemetry.metricsRatio > 1.05 ? ["telemetry: metrics on costs more than +5% CPU per request"] : []
  const percent = (ratio: number) => `${ratio >= 1 ? "+" : ""}${((ratio - 1) * 100).toFixed(1)}%`
  const results = { ...common(), telemetry, missed }
  finish(
    results,
    `Telemetry, CPU per request against metrics off: metrics on ${percent(telemetry.metricsRatio)} (target at most +5%), ` +
      `tracing on ${percent(telemetry.tracingRatio)} (reported)`,
    missed
  )
}

if (flags.only === "telemetry") runTelemetry()
else if (flags.baseline === undefined) await runParts()
else await runBaseline(flags.baseline)
