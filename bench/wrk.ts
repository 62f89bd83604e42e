/**
 * The load generator of the HTTP benchmarks: wrk (a C program; Debian's
 * `wrk` package), one thread, keep-alive connections, one request in flight
 * on each. A run's requests are described here and written as a Lua script
 * for wrk; its results come back as one JSON line.
 *
 * Until 2026-11-26 the benchmarks ran autocannon, which spends about as much
 * CPU per request as the servers it loads: on the 401 path it, not the
 * server, was the limit (the same build read 9,504 to 15,292 req/s under
 * autocannon and 17,427 to 20,155 under wrk, in alternating rounds of 2 s),
 * which pressed every ratio toward 1 and added its own noise.
 */
import { spawn, spawnSync } from "node:child_process"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"

/** The requests of a run: `paths` in turn, one per request. */
export interface WrkRequest {
  readonly method: "GET" | "POST"
  readonly paths: ReadonlyArray<string>
  readonly headers: Readonly<Record<string, string>>
  readonly body?: string | undefined
  /**
   * A header whose value is new on every request: a random UUID, or
   * `<prefix><n>` counting from 0.
   */
  readonly uniqueHeader?: {
    readonly name: string
    readonly value: { readonly _tag: "Uuid" } | { readonly _tag: "Counter"; readonly prefix: string }
  } | undefined
}

export interface WrkResult {
  /** Responses received. */
  readonly requests: number
  readonly seconds: number
  readonly latencyP50Ms: number
  readonly latencyP99Ms: number
  /** Responses by status code. */
  readonly statusCounts: Record<string, number>
  /** Connection errors: failed connects, reads, writes, and timeouts (30 s). */
  readonly errors: number
}

const hasWrk = (): boolean => spawnSync("wrk", ["--version"], { encoding: "utf8" }).error === undefined

/** Runs `command` as root (directly, or through `sudo` when it asks for no password); whether it succeeded. */
const asRoot = (command: ReadonlyArray<string>): boolean => {
  const root = process.getuid?.() === 0
  if (!root && spawnSync("sudo", ["-n", "true"]).status !== 0) return false
  const [file, ...args] = root ? command : ["sudo", "-n", ...command]
  return spawnSync(file!, args, { stdio: ["ignore", "inherit", "inherit"] }).status === 0
}

/**
 * Makes sure wrk is on the PATH: when it is not and Debian's apt-get can be
 * run as root, installs Debian's `wrk` (as `.ci/run` installs pnpm), else
 * throws, saying how to install it.
 */
export const requireWrk = (): void => {
  if (hasWrk()) return
  if (spawnSync("apt-get", ["--version"]).error === undefined) {
    console.error("The HTTP benchmarks run wrk, which is not on the PATH: installing Debian's wrk (apt-get install wrk)")
    const install = ["apt-get", "install", "-y", "--reinstall", "wrk"]
    if (asRoot(install) || (asRoot(["apt-get", "update"]) && asRoot(install))) {
      if (hasWrk()) return
    }
  }
  throw new Error("The HTTP benchmarks run wrk, which is not on the PATH: install it (Debian: apt-get install wrk)")
}

/** A Lua string literal of printable ASCII text. */
const luaString = (text: string): string => {
  if (!/^[\x20-\x7e]*$/.test(text)) throw new Error(`Not printable ASCII: ${JSON.stringify(text)}`)
  return `"${text.replace(/[\\"]/g, (c) => `\\${c}`)}"`
}

/** The wrk script of `request`: builds each request, counts statuses, prints the results as JSON. */
const scriptOf = (request: WrkRequest): string => {
  const headers = Object.entries(request.headers).map(([name, value]) => `[${luaString(name)}] = ${luaString(value)}`)
  const unique = request.uniqueHeader
  const uniqueValue = unique === undefined
    ? ""
    : unique.value._tag === "Uuid"
    ? `headers[${luaString(unique.name)}] = string.format("%08x-%04x-4%03x-%04x-%06x%06x", math.random(0, 0xffffffff),
        math.random(0, 0xffff), math.random(0, 0xfff), math.random(0x8000, 0xbfff), math.random(0, 0xffffff),
        math.random(0, 0xffffff))`
    : `headers[${luaString(unique.name)}] = ${luaString(unique.value.prefix)} .. n`
  return `
local paths = { ${request.paths.map(luaString).join(", ")} }
local headers = { ${headers.join(", ")} }
local body = ${request.body === undefined ? "nil" : luaString(request.body)}
local n = 0
counts = {}
local threads = {}

function setup(thread)
  table.insert(threads, thread)
end

function init(args)
  math.randomseed(os.time() + os.clock() * 1000000)
end

function request()
  local path = paths[n % #paths + 1]
  ${uniqueValue}
  n = n + 1
  return wrk.format(${luaString(request.method)}, path, headers, body)
end

function response(status, _, _)
  counts[status] = (counts[status] or 0) + 1
end

function done(summary, latency, _)
  local statuses = {}
  for _, thread in ipairs(threads) do
    for status, count in pairs(thread:get("counts")) do
      table.insert(statuses, string.format('"%d":%d', status, count))
    end
  end
  local errors = summary.errors
  io.write(string.format('{"requests":%d,"micros":%d,"p50":%d,"p99":%d,"errors":%d,"statusCounts":{%s}}\\n',
    summary.requests, summary.duration, latency:percentile(50), latency:percentile(99),
    errors.connect + errors.read + errors.write + errors.timeout, table.concat(statuses, ",")))
end
`
}

/**
 * Runs `request` against `url` (its origin) from `connections` connections
 * for `seconds`; its results once it has ended.
 */
export const runWrk = async (
  url: string,
  connections: number,
  seconds: number,
  request: WrkRequest
): Promise<WrkResult> => {
  const folder = Fs.mkdtempSync(Path.join(Os.tmpdir(), "animal-store-wrk-"))
  try {
    const script = Path.join(folder, "run.lua")
    Fs.writeFileSync(script, scriptOf(request))
    const child = spawn("wrk", ["-t1", `-c${connections}`, `-d${seconds}s`, "--timeout", "30s", "-s", script, url])
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (chunk) => (stdout += chunk))
    child.stderr.on("data", (chunk) => (stderr += chunk))
    const status = await new Promise<number | null>((resolve, reject) => {
      child.once("error", reject)
      child.once("close", resolve)
    })
    const line = stdout.split("\n").find((text) => text.startsWith("{\"requests\""))
    if (status !== 0 || line === undefined) throw new Error(`wrk failed (exit ${status}):\n${stdout}\n${stderr}`)
    const result = JSON.parse(line) as {
      requests: number
      micros: number
      p50: number
      p99: number
      errors: number
      statusCounts: Record<string, number>
    }
    return {
      requests: result.requests,
      seconds: result.micros / 1e6,
      latencyP50Ms: result.p50 / 1000,
      latencyP99Ms: result.p99 / 1000,
      statusCounts: result.statusCounts,
      errors: result.errors
    }
  } finally {
    Fs.rmSync(folder, { recursive: true, force: true })
  }
}
