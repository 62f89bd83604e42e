/**
 * The cost of telemetry: the standalone server as shipped (built bin, SQLite
 * on a fresh file, access log on, an enterprise key that never trips) with
 * metrics off, with metrics on (`--ops-port`, `/metrics` scraped every
 * second), and with tracing on (OTLP/HTTP to a receiver in this process),
 * interleaved in the same rounds under the same load (getPet and listPets).
 * Reports the server's CPU time per request of each (user + system from
 * /proc); target: metrics at most +5%. Tracing is reported.
 *
 *   pnpm build && node --import tsx bench/telemetry.ts [--seconds 2] [--rounds 5] [--json]
 *
 * `pnpm bench --only telemetry` runs it with `--json`: the last line is the result.
 */
import { randomBytes } from "node:crypto"
import * as Fs from "node:fs"
import * as Http from "node:http"
import * as Os from "node:os"
import * as Path from "node:path"
import { parseArgs } from "node:util"
import type { Started } from "./serverProcess.js"
import { canPin, freePort, serveCommand, serverCpuSeconds, start, stop, waitReady } from "./serverProcess.js"
import { requireWrk, runWrk } from "./wrk.js"

const { values: flags } = parseArgs({
  options: {
    seconds: { type: "string", default: "2" },
    rounds: { type: "string", default: "5" },
    json: { type: "boolean", default: false }
  }
})
const seconds = Number(flags.seconds)
const rounds = Number(flags.rounds)
const pinned = canPin()
requireWrk()

/** A receiver of OTLP/HTTP traces that counts the bytes it accepts. */
let received = 0
const receiver = Http.createServer((request, response) => {
  request.on("data", (chunk: Buffer) => (received += chunk.length))
  request.on("end", () => response.writeHead(200, { "content-type": "application/json" }).end("{}"))
})
await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve))
const otlp = `http://127.0.0.1:${(receiver.address() as import("node:net").AddressInfo).port}`

const folder = Fs.mkdtempSync(Path.join(Os.tmpdir(), "animal-store-bench-telemetry-"))
const key = `ask_live_bench${randomBytes(18).toString("base64url")}`
const unlimited = 1_000_000_000
const env = { ANIMAL_STORE_API_KEYS: `${key}:enterprise:${unlimited}:${unlimited}` }

type Variant = "off" | "metrics" | "tracing"
interface Server {
  readonly variant: Variant
  readonly started: Started
  readonly origin: string
  readonly petId: string
  readonly ops: string | undefined
}

const launch = async (variant: Variant): Promise<Server> => {
  const port = await freePort()
  const opsPort = variant === "metrics" ? await freePort() : undefined
  const extra = opsPort === undefined ? [] : ["--ops-port", String(opsPort)]
  const started = start(serveCommand(port, `sqlite:${Path.join(folder, `${variant}.db`)}`, extra), {
    core: pinned ? 0 : undefined,
    env: variant === "tracing" ? { ...env, OTEL_EXPORTER_OTLP_ENDPOINT: otlp } : env,
    logFile: Path.join(folder, `${variant}.log`)
  })
  const origin = `http://127.0.0.1:${port}`
  await waitReady(variant, started, `${origin}/v1/openapi.json`)
  let petId = ""
  for (const name of ["Rex", "Tom", "Kit"]) {
    const created = await fetch(`${origin}/v1/pets`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ name, categoryId: 1 })
    })
    petId = String(((await created.json()) as { id: unknown }).id)
  }
  return { variant, started, origin, petId, ops: opsPort === undefined ? undefined : `http://127.0.0.1:${opsPort}` }
}

const measure = async (server: Server) => {
  const scraper = server.ops === undefined ? undefined : setInterval(() => {
    fetch(`${server.ops}/metrics`).then((response) => response.text()).catch(() => {})
  }, 1000)
  const pid = server.started.child.pid!
  const before = serverCpuSeconds(pid)
  const result = await runWrk(server.origin, 64, seconds, {
    method: "GET",
    paths: [`/v1/pets/${server.petId}`, "/v1/pets?limit=20"],
    headers: { authorization: `Bearer ${key}` }
  })
  const cpu = serverCpuSeconds(pid) - before
  if (scraper !== undefined) clearInterval(scraper)
  const unexpected = Object.entries(result.statusCounts).filter(([status]) => status !== "200")
  if (unexpected.length > 0 || result.errors > 0) throw new Error(`unexpected responses: ${JSON.stringify(result)}`)
  return { rps: result.requests / result.seconds, cpuMicros: (cpu / result.requests) * 1e6 }
}

const servers: Array<Server> = []
try {
  for (const variant of ["off", "metrics", "tracing"] as const) servers.push(await launch(variant))
  for (const server of servers) await measure(server) // warm-up
  const rows: Array<Record<Variant, { rps: number; cpuMicros: number }>> = []
  for (let round = 0; round < rounds; round++) {
    // The order turns each round: a drift of the machine weighs on every variant alike.
    const order = servers.map((_, i) => servers[(i + round) % servers.length]!)
    const row = {} as Record<Variant, { rps: number; cpuMicros: number }>
    for (const server of order) row[server.variant] = await measure(server)
    rows.push(row)
    console.log(
      `round ${round + 1}: ` +
        (["off", "metrics", "tracing"] as const).map((v) => `${v} ${row[v].rps.toFixed(0)} req/s ${row[v].cpuMicros.toFixed(1)} µs CPU/req`)
          .join("; ")
    )
  }
  const median = (xs: Array<number>) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
  const metricsRatio = median(rows.map((row) => row.metrics.cpuMicros / row.off.cpuMicros))
  const tracingRatio = median(rows.map((row) => row.tracing.cpuMicros / row.off.cpuMicros))
  const result = {
    metricsRatio,
    tracingRatio,
    offCpuMicros: median(rows.map((row) => row.off.cpuMicros)),
    metricsCpuMicros: median(rows.map((row) => row.metrics.cpuMicros)),
    tracingCpuMicros: median(rows.map((row) => row.tracing.cpuMicros)),
    otlpBytesReceived: received,
    rounds: rows,
    pinned
  }
  console.log(
    `median CPU per request: metrics on ${((metricsRatio - 1) * 100).toFixed(1)}% (target at most +5%), ` +
      `tracing on ${((tracingRatio - 1) * 100).toFixed(1)}% (reported)` + (pinned ? "" : " [unpinned]")
  )
  if (flags.json) console.log(JSON.stringify(result))
} finally {
  await Promise.all(servers.map((server) => stop(server.started)))
  receiver.close()
  Fs.rmSync(folder, { recursive: true, force: true })
}
