/**
 * The cost of `Idempotency-Key` on `POST /v1/pets`: the standalone server
 * as shipped (built bin, SQLite on a fresh file, access log on; an
 * enterprise key that never trips) answers createPet without a key and with a new key on every
 * request (each one creates an animal and its record: the path a first request
 * takes), in rounds of plain, keyed, keyed, plain. Reports req/s and the server's CPU time per
 * request (user + system from /proc) of each, and the ratio. The server is
 * pinned to core 0 and this load generator to core 1 when `taskset` and two
 * cores are there.
 *
 *   pnpm build && node --import tsx bench/idempotency.ts [--seconds 5] [--rounds 3] [--json]
 *
 * `pnpm bench` runs it (`--only idempotency` alone) with `--json`: the last
 * line is then `{"ratio": <median keyed / plain CPU>, "rounds": [...], ...}`.
 */
import { spawn, spawnSync } from "node:child_process"
import { randomBytes } from "node:crypto"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { parseArgs } from "node:util"
import { freePort, serveCommand, serverCpuSeconds } from "./serverProcess.js"
import { requireWrk, runWrk } from "./wrk.js"

const { values: flags } = parseArgs({
  options: {
    seconds: { type: "string", default: "5" },
    rounds: { type: "string", default: "3" },
    keys: { type: "string", default: "uuid" },
    json: { type: "boolean", default: false }
  }
})
const seconds = Number(flags.seconds)
const rounds = Number(flags.rounds)
const root = Path.resolve(import.meta.dirname, "..")
const pinned = Os.availableParallelism() >= 2 && spawnSync("taskset", ["-c", "0", "true"]).status === 0
if (pinned) spawnSync("taskset", ["-p", "-c", "1", String(process.pid)])

requireWrk()

const folder = Fs.mkdtempSync(Path.join(Os.tmpdir(), "animal-store-bench-idem-"))
const key = `ask_live_bench${randomBytes(18).toString("base64url")}`
const unlimited = 1_000_000_000
const port = await freePort()
const command = serveCommand(port, `sqlite:${Path.join(folder, "bench.db")}`)
const [file, ...args] = pinned ? ["taskset", "-c", "0", ...command] : command
const server = spawn(file!, args, {
  cwd: root,
  env: { ...process.env, ANIMAL_STORE_API_KEYS: `${key}:enterprise:${unlimited}:${unlimited}` },
  stdio: ["ignore", "pipe", "inherit"]
})
// The access log is on, as shipped; once listening, its lines are drained.
await new Promise<void>((resolve) => {
  const onData = (chunk: Buffer) => {
    if (!String(chunk).includes("listening")) return
    server.stdout.off("data", onData)
    server.stdout.resume()
    resolve()
  }
  server.stdout.on("data", onData)
})

const body = JSON.stringify({ name: "Bench pet", categoryId: 7, status: "pending" })
const headers = { authorization: `Bearer ${key}`, "content-type": "application/json" }
let runs = 0
/**
 * `--keys uuid` (what clients send, as the IETF draft and Stripe advise: a
 * random UUID per request) or `--keys counter` (`bench-<pid>-<run>-<n>`).
 */
const keyOf = () =>
  flags.keys === "counter"
    ? { _tag: "Counter" as const, prefix: `bench-${process.pid}-${runs++}-` }
    : { _tag: "Uuid" as const }
const run = (keyed: boolean, duration: number) =>
  runWrk(`http://127.0.0.1:${port}`, 64, duration, {
    method: "POST",
    paths: ["/v1/pets"],
    headers,
    body,
    uniqueHeader: keyed ? { name: "idempotency-key", value: keyOf() } : undefined
  })

const measure = async (keyed: boolean) => {
  const before = serverCpuSeconds(server.pid!)
  const result = await run(keyed, seconds)
  const cpu = serverCpuSeconds(server.pid!) - before
  const unexpected = Object.entries(result.statusCounts).filter(([status]) => status !== "201")
  if (unexpected.length > 0 || result.errors > 0) throw new Error(`unexpected responses: ${JSON.stringify(result)}`)
  return { rps: result.requests / result.seconds, cpuMicros: (cpu / result.requests) * 1e6 }
}

try {
  await run(false, 3)
  await run(true, 3)
  const rows: Array<{ plain: { rps: number; cpuMicros: number }; keyed: { rps: number; cpuMicros: number } }> = []
  // Each round is plain, keyed, keyed, plain: a drift of the machine or of
  // the growing database during a round weighs on both sides alike.
  const mean = (a: { rps: number; cpuMicros: number }, b: { rps: number; cpuMicros: number }) => ({
    rps: (a.rps + b.rps) / 2,
    cpuMicros: (a.cpuMicros + b.cpuMicros) / 2
  })
  for (let round = 0; round < rounds; round++) {
    const plainFirst = await measure(false)
    const keyedFirst = await measure(true)
    const keyedSecond = await measure(true)
    const plainSecond = await measure(false)
    const plain = mean(plainFirst, plainSecond)
    const keyed = mean(keyedFirst, keyedSecond)
    rows.push({ plain, keyed })
    console.log(
      `round ${round + 1}: without key ${plain.rps.toFixed(0)} req/s, ${plain.cpuMicros.toFixed(0)} µs CPU/req; ` +
        `with a new key ${keyed.rps.toFixed(0)} req/s, ${keyed.cpuMicros.toFixed(0)} µs CPU/req ` +
        `(+${((keyed.cpuMicros / plain.cpuMicros - 1) * 100).toFixed(1)}%)`
    )
  }
  const median = (xs: Array<number>) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
  const ratios = rows.map((row) => row.keyed.cpuMicros / row.plain.cpuMicros)
  const medianOf = (f: (row: (typeof rows)[number]) => number) => median(rows.map(f))
  if (flags.json) {
    console.log(JSON.stringify({
      ratio: median([...ratios]),
      rounds: [...ratios],
      plainCpuMicros: medianOf((row) => row.plain.cpuMicros),
      keyedCpuMicros: medianOf((row) => row.keyed.cpuMicros),
      pinned
    }))
  }
  console.log(
    `median CPU per request with a key: +${((median([...ratios]) - 1) * 100).toFixed(1)}% ` +
      `(rounds ${ratios.map((r) => `+${((r - 1) * 100).toFixed(1)}%`).join(", ")}; target at most +20%)` +
      (pinned ? "" : " [unpinned]")
  )
} finally {
  server.kill("SIGTERM")
  await new Promise((resolve) => server.once("exit", resolve))
  Fs.rmSync(folder, { recursive: true, force: true })
}
