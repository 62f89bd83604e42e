/**
 * HTTP on loopback: the standalone server as shipped (SQLite store, access
 * log on; an enterprise key that never trips), the same server on its memory
 * store (on the scenarios that need no stored animals), the floor server (the same
 * rules on node:http and better-sqlite3) and the Fastify reference (what a
 * user would pick instead: `fastify-server.ts`), the references compiled to
 * JavaScript and run with plain `node` as a deployed service is, on copies of
 * one filled database and pinned to core 0, under wrk (`wrk.ts`) pinned to core 1; each
 * server's output goes to a file (ours writes an access line per request),
 * as a server's log would, so nothing reads it on either core. Each
 * round runs every scenario on the three servers back to back, rotating
 * which goes first and reversing the order every other round, so that each
 * server runs as often before as after each other (what ran just before on
 * core 0 can favor a run); a scenario's ratios (throughput and p99) are the
 * medians of its rounds' ratios (the machine's noise moves the servers of a
 * round alike). Many short rounds (`run.ts`: 15 of 1 s) follow that noise
 * better than a few long ones: on this machine a server's speed drifts by a
 * third within seconds. Peak RSS is each server's `VmHWM` at the end, summed
 * over its processes (the bin's supervisor and worker) with the files they
 * both map counted once (record 0073); CPU time is summed too.
 */
import * as Esbuild from "esbuild"
import { spawnSync } from "node:child_process"
import { randomBytes } from "node:crypto"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { checkServed, fillThroughServer, random } from "./dataset.js"
import type { HttpScenario, LoadLine, LoadPlan, LoadResult, Server } from "./httpScenarios.js"
import { httpScenarios, memoryScenarios, roundsOf, statuses } from "./httpScenarios.js"
import * as SealedCursors from "./sealedCursors.js"
import type { Started } from "./serverProcess.js"
import { bin, canPin, exited, freePort, root, serveCommand, serverCpuSeconds, serverPeakRssMb, start, stop, waitReady } from "./serverProcess.js"

/** The secret the servers seal listing cursors with (the plan's cursors are sealed with it). */
export const cursorSecret = randomBytes(32).toString("hex")

export interface HttpOptions {
  readonly pets: number
  readonly connections: number
  readonly warmupSeconds: number
  readonly seconds: number
  readonly rounds: number
}

/** The load generator's numbers and the server's CPU time over the measured run. */
export interface HttpMeasure extends LoadResult {
  /** Server CPU time (user + system) per request, in µs: steadier than req/s on a shared machine. */
  readonly serverCpuMicrosPerRequest: number
  /** Server CPU time over wall time: near 1 when the server, not the load generator, was the limit. */
  readonly serverBusy: number
}
export interface HttpResult {
  readonly scenario: HttpScenario
  /** The round of the median ratio. */
  readonly ours: HttpMeasure
  readonly floor: HttpMeasure
  /** ours / floor, in requests per second: the median over the rounds. */
  readonly ratio: number
  /** The Fastify reference, in the round of the median `fastifyRatio`. */
  readonly fastify: HttpMeasure
  /** ours / Fastify, in requests per second: the median over the rounds. */
  readonly fastifyRatio: number
  /** ours / Fastify, in p99 latency: the median over the rounds (each round's p99 against the other's). */
  readonly p99Ratio: number
  /** ours / Fastify, in p99 latency, of every round. */
  readonly p99RoundRatios: ReadonlyArray<number>
  /** ours / Fastify, in requests per second, of every round. */
  readonly fastifyRoundRatios: ReadonlyArray<number>
  /** floor / ours, in server CPU time per request (the ratio a server alone on its core would reach), in that round. */
  readonly cpuRatio: number
  /** ours / floor, in requests per second, of every round. */
  readonly roundRatios: ReadonlyArray<number>
  /** The standalone server on its memory store, on `memoryScenarios`. */
  readonly memory?: {
    /** In the round of the median `fastifyRatio`. */
    readonly measure: HttpMeasure
    /** memory / Fastify, in requests per second: the median over the rounds. */
    readonly fastifyRatio: number
    /** memory / Fastify, in requests per second, of every round. */
    readonly fastifyRoundRatios: ReadonlyArray<number>
  }
}

export interface HttpReport {
  readonly pets: number
  /** Whether the servers and the load generator ran on separate cores (`taskset`). */
  readonly pinned: boolean
  readonly results: ReadonlyArray<HttpResult>
  /** Peak resident set size of each server over the whole run, in MB. */
  readonly peakRssMb: Record<Exclude<Server, "baseline">, number>
}

/** Requests per minute and day of the benchmark's key and of anonymous clients: never reached. */
export const unlimited = 1_000_000_000

/**
 * The reference servers as a user would run them in production: compiled to
 * JavaScript (esbuild, their packages left as imports) and run with plain
 * `node`. Run through tsx instead, each would carry tsx's loader thread, about
 * 25 MB of memory that a deployed service does not have.
 */
export const compileReferences = async (): Promise<Record<"floor" | "fastify", string>> => {
  const outdir = Path.join(root, ".bench", "references")
  await Esbuild.build({
    absWorkingDir: root,
    entryPoints: { "floor-server": "bench/floor-server.ts", "fastify-server": "bench/fastify-server.ts" },
    outdir,
    outExtension: { ".js": ".mjs" },
    bundle: true,
    packages: "external",
    platform: "node",
    format: "esm",
    target: "node20",
    logLevel: "error"
  })
  return { floor: Path.join(outdir, "floor-server.mjs"), fastify: Path.join(outdir, "fastify-server.mjs") }
}

/** The round of the median `key` (the lower middle of an even count); `undefined` without rounds. */
export const medianBy = <K extends string, A extends Record<K, number>>(rounds: ReadonlyArray<A>, key: K): A | undefined =>
  [...rounds].sort((a, b) => a[key] - b[key])[Math.floor((rounds.length - 1) / 2)]



/** The plan's requests on `pets` animals (everything but its runs), cursors sealed with `cursorSecret`. */
export const requestsOf = (
  pets: number,
  options: Pick<HttpOptions, "connections" | "warmupSeconds" | "seconds">,
  key: string
): Omit<LoadPlan, "runs"> => {
  const next = random(pets)
  const cursors = SealedCursors.make(cursorSecret)
  return {
    connections: options.connections,
    warmupSeconds: options.warmupSeconds,
    seconds: options.seconds,
    key,
    // the n-th of statusCursors is for the listing of statuses[n % 3]
    cursors: Array.from({ length: 1024 }, () => cursors.seal(1 + Math.floor(next() * pets * 0.9), undefined)),
    statusCursors: Array.from(
      { length: 1024 },
      (_, n) => cursors.seal(1 + Math.floor(next() * pets * 0.9), statuses[n % statuses.length])
    ),
    ids: Array.from({ length: 1024 }, () => 1 + Math.floor(next() * pets))
  }
}

/** Runs the plan in the load process; samples each server's CPU time around each measured run. */
export const runLoad = (
  plan: LoadPlan,
  core: number | undefined,
  pids: Partial<Record<Server, number>>
): Promise<ReadonlyArray<HttpMeasure>> => {
  const started = start(["node", "--import", "tsx", "bench/load.ts"], { core, env: { BENCH_LOAD_PLAN: JSON.stringify(plan) } })
  const measures: Array<HttpMeasure> = []
  let pending = ""
  let before = { cpu: 0, wall: 0 }
  started.child.stdout!.on("data", (chunk: Buffer) => {
    pending += chunk.toString("utf8")
    let newline: number
    while ((newline = pending.indexOf("\n")) !== -1) {
      const line = JSON.parse(pending.slice(0, newline)) as LoadLine
      pending = pending.slice(newline + 1)
      const now = { cpu: serverCpuSeconds(pids[line.server]!), wall: performance.now() / 1000 }
      if (line.event === "start") {
        before = now
      } else {
        const { event: _, ...result } = line
        const cpu = now.cpu - before.cpu
        measures.push({
          ...result,
          serverCpuMicrosPerRequest: (cpu * 1e6) / Math.max(1, result.requests),
          serverBusy: cpu / (now.wall - before.wall)
        })
      }
    }
  })
  return exited(started.child).then(() => {
    if (started.child.exitCode !== 0) throw new Error(`The load generator failed:\n${started.output()}`)
    return measures
  })
}

/**
 * Pins this process (which reads the load generator's results and samples
 * the servers' CPU) to the load generator's core when it can; `restore` undoes it.
 */
export const pinning = (log: (line: string) => void) => {
  const pinned = canPin()
  if (!pinned) log("  taskset or a second core is missing: servers and load generator run unpinned")
  const ownCores = /:\s*(\S+)\s*$/.exec(spawnSync("taskset", ["-cp", String(process.pid)], { encoding: "utf8" }).stdout)?.[1]
  if (pinned) spawnSync("taskset", ["-cp", "1", String(process.pid)])
  return {
    pinned,
    serverCore: pinned ? 0 : undefined,
    loadCore: pinned ? 1 : undefined,
    restore: () => {
      if (pinned && ownCores !== undefined) spawnSync("taskset", ["-cp", ownCores, String(process.pid)])
    }
  }
}

/** A key of the benchmark, and its `ANIMAL_STORE_API_KEYS` entry: an enterprise key that never trips. */
export const benchKey = () => {
  const key = `ask_live_bench${randomBytes(18).toString("base64url")}`
  return { key, keyEntry: `${key}:enterprise:${unlimited}:${unlimited}` }
}

/** Starts the compiled reference server `script` on `port` and the SQLite file `db`, pinned to `core`. */
export const startReference = (
  script: string,
  port: number,
  db: string,
  options: { readonly core: number | undefined; readonly keyEntry: string; readonly logFile: string }
): Started =>
  start(["node", script, "--port", String(port), "--db", db, "--anonymous-per-minute", String(unlimited)], {
    core: options.core,
    env: { FLOOR_API_KEYS: options.keyEntry, ANIMAL_STORE_CURSOR_SECRET: cursorSecret },
    logFile: options.logFile
  })

/**
 * Starts the standalone server of the checkout at `checkout` (its bundled
 * bin, as a user starts it; access log on, as shipped) on `store`, pinned to `core`.
 */
export const startStandalone = (
  checkout: string,
  port: number,
  store: string,
  options: { readonly core: number | undefined; readonly keyEntry: string; readonly logFile: string }
): Started =>
  start(serveCommand(port, store, ["--anonymous-per-minute", String(unlimited)], Path.join(checkout, bin)), {
    cwd: checkout,
    core: options.core,
    env: { ANIMAL_STORE_API_KEYS: options.keyEntry, ANIMAL_STORE_CURSOR_SECRET: cursorSecret },
    logFile: options.logFile
  })

/** Runs the HTTP benchmark. */
export const runHttp = async (options: HttpOptions, log: (line: string) => void): Promise<HttpReport> => {
  const { loadCore, pinned, restore, serverCore } = pinning(log)
  const folder = Fs.mkdtempSync(Path.join(Os.tmpdir(), "animal-store-bench-http-"))
  const started: Array<Started> = []
  try {
    const oursDb = Path.join(folder, "ours.db")
    const floorDb = Path.join(folder, "floor.db")
    const fastifyDb = Path.join(folder, "fastify.db")
    const fillStart = performance.now()
    await fillThroughServer(root, oursDb, options.pets)
    Fs.copyFileSync(oursDb, floorDb)
    Fs.copyFileSync(oursDb, fastifyDb)
    log(`  ${options.pets.toLocaleString("en-US")} pets filled in ${((performance.now() - fillStart) / 1000).toFixed(1)} s`)

    const { key, keyEntry } = benchKey()
    const [oursPort, floorPort, fastifyPort, memoryPort] = [await freePort(), await freePort(), await freePort(), await freePort()]
    const references = await compileReferences()
    const logFile = (name: string) => Path.join(folder, name)
    const ours = startStandalone(root, oursPort, `sqlite:${oursDb}`, { core: serverCore, keyEntry, logFile: logFile("ours.log") })
    started.push(ours)
    const floor = startReference(references.floor, floorPort, floorDb, { core: serverCore, keyEntry, logFile: logFile("floor.log") })
    started.push(floor)
    const fastify = startReference(references.fastify, fastifyPort, fastifyDb, {
      core: serverCore,
      keyEntry,
      logFile: logFile("fastify.log")
    })
    started.push(fastify)
    const memory = startStandalone(root, memoryPort, "memory", { core: serverCore, keyEntry, logFile: logFile("memory.log") })
    started.push(memory)
    const urls = {
      ours: `http://127.0.0.1:${oursPort}`,
      floor: `http://127.0.0.1:${floorPort}`,
      fastify: `http://127.0.0.1:${fastifyPort}`,
      memory: `http://127.0.0.1:${memoryPort}`
    }
    await waitReady("The standalone server", ours, `${urls.ours}/v1/pets`)
    await waitReady("The floor server", floor, `${urls.floor}/v1/pets`)
    await waitReady("The Fastify reference", fastify, `${urls.fastify}/v1/pets`)
    await waitReady("The memory-store server", memory, `${urls.memory}/v1/pets`)
    await checkServed("The standalone server", urls.ours, key, options.pets)

    const plan: LoadPlan = {
      ...requestsOf(options.pets, options, key),
      runs: roundsOf(
        options.rounds,
        (scenario) => memoryScenarios.includes(scenario) ? ["ours", "floor", "fastify", "memory"] : ["ours", "floor", "fastify"],
        urls
      )
    }
    const loads = await runLoad(plan, loadCore, {
      ours: ours.child.pid!,
      floor: floor.child.pid!,
      fastify: fastify.child.pid!,
      memory: memory.child.pid!
    })
    for (
      const [name, server] of [
        ["The standalone server", ours],
        ["The floor server", floor],
        ["The Fastify reference", fastify],
        ["The memory-store server", memory]
      ] as const
    ) {
      if (server.child.exitCode !== null) throw new Error(`${name} exited during the run:\n${server.output()}`)
    }
    const peak = {
      ours: serverPeakRssMb(ours.child.pid!),
      floor: serverPeakRssMb(floor.child.pid!),
      fastify: serverPeakRssMb(fastify.child.pid!),
      memory: serverPeakRssMb(memory.child.pid!)
    }
    const results = httpScenarios.map((scenario): HttpResult => {
      const of = (server: Server) => loads.filter((load) => load.scenario === scenario && load.server === server)
      const ours = of("ours")
      const floor = of("floor")
      const fastify = of("fastify")
      if (ours.length !== options.rounds || floor.length !== options.rounds || fastify.length !== options.rounds) {
        throw new Error(`Missing results for ${scenario}`)
      }
      const rounds = ours.map((o, round) => ({
        ours: o,
        floor: floor[round]!,
        fastify: fastify[round]!,
        ratio: o.requestsPerSecond / floor[round]!.requestsPerSecond,
        fastifyRatio: o.requestsPerSecond / fastify[round]!.requestsPerSecond,
        p99Ratio: o.latencyP99Ms / Math.max(1, fastify[round]!.latencyP99Ms)
      }))
      const median = medianBy(rounds, "ratio")!
      const againstFastify = medianBy(rounds, "fastifyRatio")!
      const onMemory = of("memory")
      if (onMemory.length !== (memoryScenarios.includes(scenario) ? options.rounds : 0)) {
        throw new Error(`Missing results of the memory-store server for ${scenario}`)
      }
      const memoryRounds = onMemory.map((m, round) => ({ measure: m, fastifyRatio: m.requestsPerSecond / fastify[round]!.requestsPerSecond }))
      const memoryMedian = medianBy(memoryRounds, "fastifyRatio")
      return {
        scenario,
        ours: median.ours,
        floor: median.floor,
        ratio: median.ratio,
        cpuRatio: median.floor.serverCpuMicrosPerRequest / median.ours.serverCpuMicrosPerRequest,
        roundRatios: rounds.map(({ ratio }) => ratio),
        fastify: againstFastify.fastify,
        fastifyRatio: againstFastify.fastifyRatio,
        p99Ratio: medianBy(rounds, "p99Ratio")!.p99Ratio,
        p99RoundRatios: rounds.map(({ p99Ratio }) => p99Ratio),
        fastifyRoundRatios: rounds.map(({ fastifyRatio }) => fastifyRatio),
        ...(memoryMedian === undefined ? {} : {
          memory: {
            measure: memoryMedian.measure,
            fastifyRatio: memoryMedian.fastifyRatio,
            fastifyRoundRatios: memoryRounds.map(({ fastifyRatio }) => fastifyRatio)
          }
        })
      }
    })
    for (const result of results) {
      log(`  ${result.scenario}: ours ${Math.round(result.ours.requestsPerSecond)} req/s ` +
        `(${Math.round(result.ours.serverCpuMicrosPerRequest)} µs CPU/req), ` +
        `floor ${Math.round(result.floor.requestsPerSecond)} req/s ` +
        `(${Math.round(result.floor.serverCpuMicrosPerRequest)} µs CPU/req), ` +
        `fastify ${Math.round(result.fastify.requestsPerSecond)} req/s ` +
        `(${Math.round(result.fastify.serverCpuMicrosPerRequest)} µs CPU/req), ` +
        `ratios to floor ${result.roundRatios.map((ratio) => ratio.toFixed(2)).join(" ")}, ` +
        `to fastify ${result.fastifyRoundRatios.map((ratio) => ratio.toFixed(2)).join(" ")}` +
        (result.memory === undefined ? "" : `; memory store ${Math.round(result.memory.measure.requestsPerSecond)} req/s ` +
          `(${Math.round(result.memory.measure.serverCpuMicrosPerRequest)} µs CPU/req), ` +
          `to fastify ${result.memory.fastifyRoundRatios.map((ratio) => ratio.toFixed(2)).join(" ")}`))
    }
    return { pets: options.pets, pinned, results, peakRssMb: peak }
  } finally {
    await Promise.all(started.map(stop))
    Fs.rmSync(folder, { recursive: true, force: true })
    restore()
  }
}
