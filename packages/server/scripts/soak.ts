/**
 * Sustained load on the standalone server.
 *
 * Starts `animal-store serve` as a child process on a temporary SQLite file
 * with one provisioned enterprise key, sends a steady mix of requests for a
 * fixed time (list 40%, create 30%, get 20%, without a valid key 10%), checks
 * through the API that every acknowledged animal is stored as acknowledged,
 * and stops the server with SIGTERM (it must exit 0).
 *
 * Each 5 s slice reports the requests, errors, response latency percentiles,
 * the server's RSS (VmRSS of /proc/<pid>/status, its workers' included) and heap, the server's
 * event-loop delay (measured inside its worker by a preloaded probe,
 * `internal/eventLoopProbe.ts`) and the load process's own.
 *
 * Exits 1 on any error (an unexpected status or body, a network error, a
 * response slower than 10 s, the load falling behind its rate, a server log
 * line of level ERROR, an acknowledged animal missing or different, a server
 * exit other than 0) or on growth from the second slice (the first is
 * warm-up) to the end: the last slice's RSS over 1.25x; the best p99 latency
 * of the last quarter of the slices over 3x (compared with at least 10 ms);
 * the same for the server's event-loop delay p99 (at least 20 ms).
 *
 * Usage: `pnpm --filter @animal-store/http-adapter soak [--seconds 120] [--rate 100]`.
 * The last line is `SOAK_SUMMARY <json>`.
 */
import * as ChildProcess from "node:child_process"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { monitorEventLoopDelay } from "node:perf_hooks"
import { fileURLToPath } from "node:url"
import { parseArgs } from "node:util"
import { bin, cleanEnv } from "../test/support/CliProcess.js"
import type { ProbeSample } from "./internal/eventLoopDelay.js"
import { loopResolutionMs } from "./internal/eventLoopDelay.js"

const probe = Path.resolve(Path.dirname(fileURLToPath(import.meta.url)), "internal/eventLoopProbe.ts")

const sliceMs = 5_000
const requestTimeoutMs = 10_000
const maxInFlight = 256
const tolerance = { rss: 1.25, latency: 3, latencyFloorMs: 10, loopDelay: 3, loopDelayFloorMs: 20 }

interface Options {
  readonly seconds: number
  readonly rate: number
}

const parseOptions = (args: ReadonlyArray<string>): Options => {
  const { values } = parseArgs({
    args: args.filter((arg) => arg !== "--"),
    options: { seconds: { type: "string" }, rate: { type: "string" } }
  })
  const positive = (name: "seconds" | "rate", fallback: number) => {
    const value = Number(values[name] ?? fallback)
    if (!Number.isFinite(value) || value <= 0) throw new Error(`--${name}: expected a positive number`)
    return value
  }
  return { seconds: positive("seconds", 120), rate: positive("rate", 100) }
}

// The server -------------------------------------------------------------------------------------

interface Server {
  readonly origin: string
  readonly pid: number
  readonly probeSamples: Array<ProbeSample & { readonly at: number }>
  readonly logErrors: Array<string>
  /** SIGTERM (SIGKILL 10 s later), then the exit code (`null` when killed by a signal). */
  readonly stop: () => Promise<number | null>
}

const startServer = (filename: string, key: string): Promise<Server> =>
  new Promise((resolve, reject) => {
    const probeFile = `${filename}.probe`
    const child = ChildProcess.spawn(
      process.execPath,
      [
        "--import",
        "tsx",
        "--import",
        probe,
        bin,
        "serve",
        "--port",
        "0",
        "--store",
        `sqlite:${filename}`,
        "--access-log",
        "off",
        "--anonymous-per-minute",
        "1000000"
      ],
      {
        env: cleanEnv({ ANIMAL_STORE_API_KEYS: `${key}:enterprise:1000000000:1000000000`, SOAK_PROBE_FILE: probeFile }),
        stdio: ["ignore", "pipe", "pipe"]
      }
    )
    const probeSamples: Server["probeSamples"] = []
    const logErrors: Array<string> = []
    const exited = new Promise<number | null>((done) => child.on("exit", (code) => done(code)))
    let stdout = ""
    let listening = false
    lines(child.stdout!, (line) => {
      stdout += line + "\n"
      if (/"logLevel":"(ERROR|FATAL)"/.test(line)) logErrors.push(line)
      const match = /listening on (http:\/\/127\.0\.0\.1:\d+)\/v1/.exec(line)
      if (match !== null && !listening) {
        listening = true
        resolve({
          origin: match[1]!,
          pid: child.pid!,
          probeSamples,
          logErrors,
          stop: () => {
            if (child.exitCode === null && child.signalCode === null) {
              child.kill("SIGTERM")
              const kill = setTimeout(() => child.kill("SIGKILL"), 10_000)
              void exited.then(() => clearTimeout(kill))
            }
            return exited
          }
        })
      }
    })
    lines(child.stderr!, (line) => logErrors.push(line))
    // The probe's lines, read as they are appended.
    let read = 0
    const reader = setInterval(() => {
      const text = Fs.existsSync(probeFile) ? Fs.readFileSync(probeFile, "utf8") : ""
      const end = text.lastIndexOf("\n") + 1
      for (const line of text.slice(read, end).split("\n").filter((line) => line !== "")) {
        probeSamples.push({ ...(JSON.parse(line) as ProbeSample), at: performance.now() })
      }
      read = Math.max(read, end)
    }, 200)
    void exited.then(() => clearInterval(reader))
    exited.then((code) => {
      if (!listening) reject(new Error(`the server exited (${code}) before listening:\n${stdout}${logErrors.join("\n")}`))
    })
  })

const lines = (stream: NodeJS.ReadableStream, onLine: (line: string) => void) => {
  let buffered = ""
  stream.on("data", (chunk: Buffer | string) => {
    buffered += chunk.toString()
    let end = buffered.indexOf("\n")
    while (end !== -1) {
      const line = buffered.slice(0, end)
      buffered = buffered.slice(end + 1)
      if (line.length > 0) onLine(line)
      end = buffered.indexOf("\n")
    }
  })
}

/** The pids of a process's children (of every thread). */
const childrenOf = (pid: number): ReadonlyArray<number> =>
  Fs.readdirSync(`/proc/${pid}/task`).flatMap((task) => {
    try {
      return Fs.readFileSync(`/proc/${pid}/task/${task}/children`, "utf8").trim().split(/\s+/).filter(Boolean).map(Number)
    } catch {
      return []
    }
  })

/** Resident set size of the server, in bytes: process `pid` and its children (the bin's supervisor and worker). */
const rssOf = (pid: number): number => {
  try {
    return [pid, ...childrenOf(pid)].reduce((sum, process) => {
      const match = /^VmRSS:\s+(\d+) kB$/m.exec(Fs.readFileSync(`/proc/${process}/status`, "utf8"))
      return sum + (match === null ? Number.NaN : Number(match[1]) * 1024)
    }, 0)
  } catch {
    return Number.NaN
  }
}

// The load ---------------------------------------------------------------------------------------

interface Pet {
  readonly id: number
  readonly name: string
  readonly categoryId: number
  readonly status: string
}

type Kind = "list" | "create" | "get" | "unauthorized"

interface Completed {
  readonly at: number
  readonly kind: Kind
  readonly latencyMs: number
  readonly error: string | undefined
}

const statuses = ["available", "pending", "sold"] as const

const isPet = (value: unknown): value is Pet =>
  typeof value === "object" && value !== null &&
  Object.keys(value).sort().join(",") === "categoryId,id,name,status" &&
  Number.isSafeInteger((value as Pet).id) && typeof (value as Pet).name === "string" &&
  Number.isSafeInteger((value as Pet).categoryId) && statuses.includes((value as Pet).status as never)

const samePet = (a: Pet, b: Pet) =>
  a.id === b.id && a.name === b.name && a.categoryId === b.categoryId && a.status === b.status

class Load {
  readonly acknowledged = new Map<number, Pet>()
  readonly completed: Array<Completed> = []
  readonly errors: Array<string> = []
  inFlight = 0
  private created = 0

  constructor(readonly origin: string, readonly key: string) {}

  /** list 40%, create 30%, get 20% (list while nothing is created), without a valid key 10%. */
  pick(): Kind {
    const roll = Math.random()
    if (roll < 0.4) return "list"
    if (roll < 0.7) return "create"
    if (roll < 0.9) return this.acknowledged.size === 0 ? "list" : "get"
    return "unauthorized"
  }

  /** Sends one request of `kind` and records its outcome. */
  async send(kind: Kind): Promise<void> {
    const started = performance.now()
    this.inFlight++
    let error: string | undefined
    try {
      error = await this.exchange(kind)
    } catch (cause) {
      error = `${kind}: ${cause instanceof Error ? cause.message : String(cause)}`
    } finally {
      this.inFlight--
    }
    const at = performance.now()
    if (error !== undefined) this.errors.push(error)
    this.completed.push({ at, kind, latencyMs: at - started, error })
  }

  private async exchange(kind: Kind): Promise<string | undefined> {
    const auth = { authorization: `Bearer ${this.key}` }
    const signal = AbortSignal.timeout(requestTimeoutMs)
    switch (kind) {
      case "list": {
        const limit = 1 + Math.floor(Math.random() * 100)
        const status = Math.random() < 0.5 ? `&status=${statuses[Math.floor(Math.random() * 3)]}` : ""
        const response = await fetch(`${this.origin}/v1/pets?limit=${limit}${status}`, { headers: auth, signal })
        const body: unknown = await response.json()
        if (response.status !== 200) return `list: status ${response.status}`
        if (!Array.isArray(body) || body.length > limit || !body.every(isPet)) return "list: not a page of pets"
        return undefined
      }
      case "create": {
        const n = ++this.created
        const pet = { name: `soak ${n}`, categoryId: 1 + (n % 50), status: statuses[n % 3]! }
        const response = await fetch(`${this.origin}/v1/pets`, {
          method: "POST",
          headers: { ...auth, "content-type": "application/json" },
          body: JSON.stringify(pet),
          signal
        })
        const body: unknown = await response.json()
        if (response.status !== 201) return `create: status ${response.status}`
        if (!isPet(body) || !samePet(body, { ...pet, id: body.id })) return "create: not the created pet"
        this.acknowledged.set(body.id, body)
        return undefined
      }
      case "get": {
        const ids = [...this.acknowledged.keys()]
        const id = ids[Math.floor(Math.random() * ids.length)]!
        const response = await fetch(`${this.origin}/v1/pets/${id}`, { headers: auth, signal })
        const body: unknown = await response.json()
        if (response.status !== 200) return `get: status ${response.status}`
        if (!isPet(body) || !samePet(body, this.acknowledged.get(id)!)) return `get: pet ${id} differs`
        return undefined
      }
      case "unauthorized": {
        const headers = Math.random() < 0.5 ? {} : { authorization: "Bearer ask_live_notakey000000000000000" }
        const response = await fetch(`${this.origin}/v1/pets`, { headers, signal })
        await response.arrayBuffer()
        return response.status === 401 ? undefined : `unauthorized: status ${response.status}`
      }
    }
  }

  /** Every stored animal, following the next links. */
  async listAll(): Promise<Array<Pet>> {
    const all: Array<Pet> = []
    let next: string | undefined = "/v1/pets?limit=100"
    while (next !== undefined) {
      const response: Response = await fetch(this.origin + next, { headers: { authorization: `Bearer ${this.key}` } })
      if (response.status !== 200) throw new Error(`listing: status ${response.status}`)
      all.push(...(await response.json() as Array<Pet>))
      next = /^<([^>]+)>; rel="next"$/.exec(response.headers.get("link") ?? "")?.[1]
    }
    return all
  }
}

/** Sends `rate` requests a second for `seconds`, whatever the answers' pace (open loop). */
const drive = async (load: Load, options: Options, onSlice: (index: number) => void): Promise<void> => {
  const started = performance.now()
  const durationMs = options.seconds * 1_000
  let issued = 0
  let slice = 0
  await new Promise<void>((done) => {
    const timer = setInterval(() => {
      const elapsed = performance.now() - started
      const due = Math.floor(Math.min(elapsed, durationMs) / 1_000 * options.rate)
      for (; issued < due; issued++) {
        if (load.inFlight >= maxInFlight) load.errors.push(`the load fell behind: ${maxInFlight} requests in flight`)
        else void load.send(load.pick())
      }
      while (elapsed >= (slice + 1) * sliceMs && (slice + 1) * sliceMs <= durationMs) onSlice(slice++)
      if (elapsed >= durationMs) {
        clearInterval(timer)
        done()
      }
    }, 5)
  })
  while (load.inFlight > 0) await new Promise((resume) => setTimeout(resume, 20))
}

// Figures ----------------------------------------------------------------------------------------

const percentile = (sorted: ReadonlyArray<number>, q: number): number =>
  sorted.length === 0 ? Number.NaN : sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!

const round = (n: number, digits = 1) => Math.round(n * 10 ** digits) / 10 ** digits
const mib = (bytes: number) => round(bytes / 2 ** 20)
const loopMs = (nanoseconds: number) => round(Math.max(0, nanoseconds / 1e6 - loopResolutionMs), 2)

interface Slice {
  readonly slice: number
  readonly requests: number
  readonly errors: number
  readonly latencyMs: { readonly p50: number; readonly p90: number; readonly p99: number; readonly max: number }
  readonly serverRssMiB: { readonly last: number; readonly max: number }
  readonly serverHeapMiB: number
  readonly serverLoopDelayMs: { readonly p99: number; readonly max: number }
  readonly loadLoopDelayMs: { readonly p99: number; readonly max: number }
}

/**
 * Growth between the second slice (the first is warm-up) and the end: the
 * last slice's RSS; the best p99 latency and server event-loop delay p99 of
 * the last quarter of the slices (at least two), so that a burst of load
 * from other processes on the machine is not taken for growth, while a
 * steady slowdown is.
 */
const growth = (slices: ReadonlyArray<Slice>): Array<string> => {
  const second = slices[1]
  const last = slices.at(-1)
  if (second === undefined || last === undefined || slices.length < 4) {
    return ["too short to compare slices: run at least 20 seconds"]
  }
  const late = slices.slice(-Math.max(2, Math.floor(slices.length / 4)))
  const bestLatency = Math.min(...late.map((slice) => slice.latencyMs.p99))
  const bestLoopDelay = Math.min(...late.map((slice) => slice.serverLoopDelayMs.p99))
  const failures: Array<string> = []
  if (last.serverRssMiB.last > tolerance.rss * second.serverRssMiB.last) {
    failures.push(`server RSS grew from ${second.serverRssMiB.last} to ${last.serverRssMiB.last} MiB`)
  }
  if (bestLatency > tolerance.latency * Math.max(second.latencyMs.p99, tolerance.latencyFloorMs)) {
    failures.push(`p99 latency grew from ${second.latencyMs.p99} to at least ${bestLatency} ms`)
  }
  if (bestLoopDelay > tolerance.loopDelay * Math.max(second.serverLoopDelayMs.p99, tolerance.loopDelayFloorMs)) {
    failures.push(`server event-loop delay p99 grew from ${second.serverLoopDelayMs.p99} to at least ${bestLoopDelay} ms`)
  }
  return failures
}

const main = async () => {
  const options = parseOptions(process.argv.slice(2))
  const folder = Fs.mkdtempSync(Path.join(Os.tmpdir(), "animal-store-soak-"))
  try {
    const key = `ask_live_soak${Array.from({ length: 24 }, () => Math.floor(Math.random() * 36).toString(36)).join("")}`
    const server = await startServer(Path.join(folder, "animal-store.db"), key)
    try {
      await run(options, server, key)
    } finally {
      await server.stop()
    }
  } finally {
    Fs.rmSync(folder, { recursive: true, force: true })
  }
}

const run = async (options: Options, server: Server, key: string) => {
  const load = new Load(server.origin, key)
  const loadLoop = monitorEventLoopDelay({ resolution: loopResolutionMs })
  loadLoop.enable()
  const rssSamples: Array<{ readonly at: number; readonly rss: number }> = []
  const rssTimer = setInterval(() => rssSamples.push({ at: performance.now(), rss: rssOf(server.pid) }), 1_000)
  const slices: Array<Slice> = []
  let sliceStart = performance.now()
  const firstRss = rssOf(server.pid)

  console.log(`soak: ${options.rate} requests/s for ${options.seconds} s on ${server.origin} (server pid ${server.pid})`)
  console.log("slice  requests errors  p50ms  p90ms  p99ms  maxms  rssMiB heapMiB  srvLoop99 srvLoopMax  loadLoop99")
  await drive(load, options, (index) => {
    const end = performance.now()
    const inSlice = <A extends { readonly at: number }>(samples: ReadonlyArray<A>) =>
      samples.filter((s) => s.at > sliceStart && s.at <= end)
    const done = inSlice(load.completed)
    const latencies = done.map((c) => c.latencyMs).sort((a, b) => a - b)
    const rss = inSlice(rssSamples).map((s) => s.rss)
    const probes = inSlice(server.probeSamples)
    const slice: Slice = {
      slice: index + 1,
      requests: done.length,
      errors: done.filter((c) => c.error !== undefined).length,
      latencyMs: {
        p50: round(percentile(latencies, 0.5)),
        p90: round(percentile(latencies, 0.9)),
        p99: round(percentile(latencies, 0.99)),
        max: round(latencies.at(-1) ?? Number.NaN)
      },
      serverRssMiB: { last: mib(rss.at(-1) ?? Number.NaN), max: mib(Math.max(...rss)) },
      serverHeapMiB: mib(probes.at(-1)?.heapUsed ?? Number.NaN),
      serverLoopDelayMs: {
        p99: round(Math.max(0, Math.max(...probes.map((p) => p.p99)) - loopResolutionMs), 2),
        max: round(Math.max(0, Math.max(...probes.map((p) => p.max)) - loopResolutionMs), 2)
      },
      loadLoopDelayMs: { p99: loopMs(loadLoop.percentile(99)), max: loopMs(loadLoop.max) }
    }
    loadLoop.reset()
    sliceStart = end
    slices.push(slice)
    console.log(
      [
        String(slice.slice).padStart(5),
        String(slice.requests).padStart(9),
        String(slice.errors).padStart(6),
        ...[slice.latencyMs.p50, slice.latencyMs.p90, slice.latencyMs.p99, slice.latencyMs.max].map((n) =>
          String(n).padStart(6)
        ),
        String(slice.serverRssMiB.last).padStart(7),
        String(slice.serverHeapMiB).padStart(7),
        String(slice.serverLoopDelayMs.p99).padStart(10),
        String(slice.serverLoopDelayMs.max).padStart(10),
        String(slice.loadLoopDelayMs.p99).padStart(11)
      ].join(" ")
    )
  })
  clearInterval(rssTimer)
  const lastRss = rssOf(server.pid)

  const stored = await load.listAll()
  const byId = new Map(stored.map((pet) => [pet.id, pet]))
  const missing = [...load.acknowledged.values()].filter((pet) => {
    const found = byId.get(pet.id)
    return found === undefined || !samePet(found, pet)
  })
  const unacknowledged = stored.filter((pet) => !load.acknowledged.has(pet.id))
  const exitCode = await server.stop()

  const failures: Array<string> = []
  if (load.errors.length > 0) failures.push(`${load.errors.length} errors, first: ${load.errors.slice(0, 5).join("; ")}`)
  if (server.logErrors.length > 0) failures.push(`server logged errors: ${server.logErrors.slice(0, 3).join("; ")}`)
  if (missing.length > 0) failures.push(`${missing.length} acknowledged pets missing or different`)
  if (unacknowledged.length > 0) failures.push(`${unacknowledged.length} stored pets were never acknowledged`)
  if (exitCode !== 0) failures.push(`the server exited ${exitCode} on SIGTERM`)
  failures.push(...growth(slices))

  const summary = {
    seconds: options.seconds,
    rate: options.rate,
    requests: load.completed.length,
    errors: load.errors.length,
    byKind: Object.fromEntries(
      (["list", "create", "get", "unauthorized"] as const).map((kind) => [
        kind,
        load.completed.filter((c) => c.kind === kind).length
      ])
    ),
    acknowledgedPets: load.acknowledged.size,
    storedPets: stored.length,
    missingPets: missing.length,
    serverRssMiB: {
      first: mib(firstRss),
      last: mib(lastRss),
      max: mib(Math.max(firstRss, lastRss, ...rssSamples.map((s) => s.rss)))
    },
    serverExitCode: exitCode,
    slices,
    failures
  }
  console.log(
    `requests ${summary.requests} (${Object.entries(summary.byKind).map(([k, n]) => `${k} ${n}`).join(", ")}), ` +
      `errors ${summary.errors}, pets acknowledged ${summary.acknowledgedPets}, stored ${summary.storedPets}, ` +
      `missing ${summary.missingPets}; server RSS first ${summary.serverRssMiB.first} MiB, last ${summary.serverRssMiB.last} MiB, ` +
      `max ${summary.serverRssMiB.max} MiB; server exit ${exitCode}`
  )
  console.log(failures.length === 0 ? "soak: OK" : `soak: FAILED\n  ${failures.join("\n  ")}`)
  console.log(`SOAK_SUMMARY ${JSON.stringify(summary)}`)
  process.exitCode = failures.length === 0 ? 0 : 1
}

main().catch((error: unknown) => {
  console.error(`soak: ${error instanceof Error ? error.message : String(error)}`)
  process.exitCode = 1
})
