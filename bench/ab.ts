/**
 * A/B on loopback (`pnpm bench --baseline <commit-ish>`): the standalone
 * server of this checkout ("today") beside the one built from another commit
 * (`baseline.ts`) and the Fastify reference, in the same rounds. Each server
 * runs as shipped (bundled bin, SQLite store, access log on) on a file of its
 * own: each standalone server creates and migrates its file, which is then
 * filled with the same animals (`dataset.ts`); the Fastify reference runs on
 * a copy of today's. Servers are pinned to core 0 and wrk to core 1; each
 * round runs every scenario on the three servers back to back, the order
 * rotated and reversed as in `http.ts`. A scenario's ratios are the medians
 * of its rounds' ratios; its req/s and p99 figures, the medians of each
 * server's rounds. Peak RSS is each server's `VmHWM` at the end, summed over
 * its processes (the bin's supervisor and worker).
 */
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import type { Baseline } from "./baseline.js"
import { checkServed, fillThroughServer } from "./dataset.js"
import type { HttpMeasure, HttpOptions } from "./http.js"
import { benchKey, compileReferences, pinning, requestsOf, runLoad, startReference, startStandalone } from "./http.js"
import type { HttpScenario } from "./httpScenarios.js"
import { httpScenarios, roundsOf } from "./httpScenarios.js"
import type { Started } from "./serverProcess.js"
import { freePort, root, serverPeakRssMb, stop, waitReady } from "./serverProcess.js"

export interface AbResult {
  readonly scenario: HttpScenario
  /** Each server's runs, one a round. */
  readonly rounds: { readonly today: ReadonlyArray<HttpMeasure>; readonly baseline: ReadonlyArray<HttpMeasure>; readonly fastify: ReadonlyArray<HttpMeasure> }
  /** Medians over the rounds of each server's req/s. */
  readonly requestsPerSecond: { readonly today: number; readonly baseline: number; readonly fastify: number }
  /** Medians over the rounds of each server's p99 latency, in ms. */
  readonly p99Ms: { readonly today: number; readonly baseline: number; readonly fastify: number }
  /** today / baseline, in req/s: the median of the rounds' ratios, and each round's. */
  readonly baselineRatio: number
  readonly baselineRoundRatios: ReadonlyArray<number>
  /** today / Fastify, in req/s. */
  readonly fastifyRatio: number
  readonly fastifyRoundRatios: ReadonlyArray<number>
  /** today / Fastify, in p99 latency (Fastify's taken as at least 1 ms). */
  readonly p99Ratio: number
  readonly p99RoundRatios: ReadonlyArray<number>
  /** Responses of another status than the scenario's, and connection errors, over every round. */
  readonly unexpected: { readonly today: number; readonly baseline: number; readonly fastify: number }
}

export interface AbReport {
  readonly pets: number
  readonly pinned: boolean
  readonly baseline: Baseline
  readonly results: ReadonlyArray<AbResult>
  /** Peak resident set size of each server over the whole run, in MB. */
  readonly peakRssMb: { readonly today: number; readonly baseline: number; readonly fastify: number }
  /** today / baseline, in peak RSS. */
  readonly rssRatio: number
}

/** The middle value; of an even count, the mean of the two middle ones. */
const median = (values: ReadonlyArray<number>): number => {
  const sorted = [...values].sort((a, b) => a - b)
  const middle = sorted.length >> 1
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2
}

/** Runs the A/B benchmark of this checkout against `baseline` (built). */
export const runAb = async (options: HttpOptions, baseline: Baseline, log: (line: string) => void): Promise<AbReport> => {
  const { loadCore, pinned, restore, serverCore } = pinning(log)
  const folder = Fs.mkdtempSync(Path.join(Os.tmpdir(), "animal-store-bench-ab-"))
  const started: Array<Started> = []
  try {
    const todayDb = Path.join(folder, "today.db")
    const baselineDb = Path.join(folder, "baseline.db")
    const fastifyDb = Path.join(folder, "fastify.db")
    const fillStart = performance.now()
    await fillThroughServer(root, todayDb, options.pets)
    await fillThroughServer(baseline.checkout, baselineDb, options.pets)
    Fs.copyFileSync(todayDb, fastifyDb)
    log(`  ${options.pets.toLocaleString("en-US")} pets filled twice in ${((performance.now() - fillStart) / 1000).toFixed(1)} s`)

    const { key, keyEntry } = benchKey()
    const [todayPort, baselinePort, fastifyPort] = [await freePort(), await freePort(), await freePort()]
    const references = await compileReferences()
    const logFile = (name: string) => Path.join(folder, name)
    const today = startStandalone(root, todayPort, `sqlite:${todayDb}`, { core: serverCore, keyEntry, logFile: logFile("today.log") })
    started.push(today)
    const old = startStandalone(baseline.checkout, baselinePort, `sqlite:${baselineDb}`, {
      core: serverCore,
      keyEntry,
      logFile: logFile("baseline.log")
    })
    started.push(old)
    const fastify = startReference(references.fastify, fastifyPort, fastifyDb, {
      core: serverCore,
      keyEntry,
      logFile: logFile("fastify.log")
    })
    started.push(fastify)
    const urls = {
      ours: `http://127.0.0.1:${todayPort}`,
      baseline: `http://127.0.0.1:${baselinePort}`,
      fastify: `http://127.0.0.1:${fastifyPort}`
    }
    const servers = [
      ["Today's server", today, urls.ours],
      [`The server of ${baseline.commitish}`, old, urls.baseline],
      ["The Fastify reference", fastify, urls.fastify]
    ] as const
    for (const [name, server, url] of servers) await waitReady(name, server, `${url}/v1/pets`)
    await checkServed("Today's server", urls.ours, key, options.pets)
    await checkServed(`The server of ${baseline.commitish}`, urls.baseline, key, options.pets)

    const loads = await runLoad(
      { ...requestsOf(options.pets, options, key), runs: roundsOf(options.rounds, () => ["ours", "baseline", "fastify"], urls) },
      loadCore,
      { ours: today.child.pid!, baseline: old.child.pid!, fastify: fastify.child.pid! }
    )
    for (const [name, server] of servers) {
      if (server.child.exitCode !== null) throw new Error(`${name} exited during the run:\n${server.output()}`)
    }
    const peak = { today: serverPeakRssMb(today.child.pid!), baseline: serverPeakRssMb(old.child.pid!), fastify: serverPeakRssMb(fastify.child.pid!) }
    const results = httpScenarios.map((scenario): AbResult => {
      const of = (server: "ours" | "baseline" | "fastify") =>
        loads.filter((load) => load.scenario === scenario && load.server === server)
      const rounds = { today: of("ours"), baseline: of("baseline"), fastify: of("fastify") }
      if (Object.values(rounds).some((runs) => runs.length !== options.rounds)) throw new Error(`Missing results for ${scenario}`)
      const ratios = (f: (round: number) => number) => rounds.today.map((_, round) => f(round))
      const rps = (runs: ReadonlyArray<HttpMeasure>, round: number) => runs[round]!.requestsPerSecond
      const baselineRoundRatios = ratios((round) => rps(rounds.today, round) / rps(rounds.baseline, round))
      const fastifyRoundRatios = ratios((round) => rps(rounds.today, round) / rps(rounds.fastify, round))
      const p99RoundRatios = ratios((round) =>
        rounds.today[round]!.latencyP99Ms / Math.max(1, rounds.fastify[round]!.latencyP99Ms)
      )
      const each = (f: (measure: HttpMeasure) => number) => ({
        today: median(rounds.today.map(f)),
        baseline: median(rounds.baseline.map(f)),
        fastify: median(rounds.fastify.map(f))
      })
      const unexpected = (runs: ReadonlyArray<HttpMeasure>) => runs.reduce((sum, run) => sum + run.unexpected, 0)
      return {
        scenario,
        rounds,
        requestsPerSecond: each((measure) => measure.requestsPerSecond),
        p99Ms: each((measure) => measure.latencyP99Ms),
        baselineRatio: median(baselineRoundRatios),
        baselineRoundRatios,
        fastifyRatio: median(fastifyRoundRatios),
        fastifyRoundRatios,
        p99Ratio: median(p99RoundRatios),
        p99RoundRatios,
        unexpected: { today: unexpected(rounds.today), baseline: unexpected(rounds.baseline), fastify: unexpected(rounds.fastify) }
      }
    })
    const list = (ratios: ReadonlyArray<number>) => ratios.map((ratio) => ratio.toFixed(2)).join(" ")
    for (const result of results) {
      const { baseline: b, fastify: f, today: t } = result.requestsPerSecond
      log(`  ${result.scenario}: today ${Math.round(t)} req/s, baseline ${Math.round(b)} req/s, fastify ${Math.round(f)} req/s; ` +
        `rounds' ratios to baseline ${list(result.baselineRoundRatios)}, to fastify ${list(result.fastifyRoundRatios)}, ` +
        `p99 to fastify ${list(result.p99RoundRatios)}`)
    }
    return { pets: options.pets, pinned, baseline, results, peakRssMb: peak, rssRatio: peak.today / peak.baseline }
  } finally {
    await Promise.all(started.map(stop))
    Fs.rmSync(folder, { recursive: true, force: true })
    restore()
  }
}
