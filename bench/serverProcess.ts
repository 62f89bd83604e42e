/**
 * What the benchmarks share about the processes they start and measure: the
 * standalone server's command as a user runs it, starting and stopping a
 * server (pinned to a core, its output to a log file), waiting until it
 * answers, a free loopback port, and a process's CPU time and peak memory.
 */
import type { ChildProcess } from "node:child_process"
import { spawn, spawnSync } from "node:child_process"
import * as Fs from "node:fs"
import * as Net from "node:net"
import * as Os from "node:os"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"

/** The repository this bench belongs to. */
export const root = Path.resolve(Path.dirname(fileURLToPath(import.meta.url)), "..")

/** The bundled `animal-store` bin, relative to a checkout's root (`pnpm build` makes it). */
export const bin = "packages/server/dist/cli/animal-store.js"

/** `node <binPath> serve` on 127.0.0.1:`port` with the store at `store`, then `extra` flags. */
export const serveCommand = (
  port: number,
  store: string,
  extra: ReadonlyArray<string> = [],
  binPath: string = bin
): Array<string> => ["node", binPath, "serve", "--port", String(port), "--host", "127.0.0.1", "--store", store, ...extra]

/** A TCP port free on 127.0.0.1 now. */
export const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const server = Net.createServer()
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as Net.AddressInfo
      server.close(() => resolve(port))
    })
  })

const ticksPerSecond = Number(spawnSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).stdout.trim()) || 100

/** CPU seconds (user + system) process `pid` has used. */
export const cpuSeconds = (pid: number): number => {
  const stat = Fs.readFileSync(`/proc/${pid}/stat`, "utf8")
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
  return (Number(fields[11]) + Number(fields[12])) / ticksPerSecond
}

/** Process `pid`'s peak resident set size so far (`VmHWM`), in MB. */
export const peakRssMb = (pid: number): number => {
  const match = /^VmHWM:\s+(\d+) kB/m.exec(Fs.readFileSync(`/proc/${pid}/status`, "utf8"))
  return match === null ? Number.NaN : Number(match[1]) / 1024
}

/** The pids of a process's children (of every thread). */
export const childrenOf = (pid: number): ReadonlyArray<number> =>
  Fs.readdirSync(`/proc/${pid}/task`).flatMap((task) => {
    try {
      return Fs.readFileSync(`/proc/${pid}/task/${task}/children`, "utf8").trim().split(/\s+/).filter(Boolean).map(Number)
    } catch {
      return []
    }
  })

/**
 * CPU seconds a server has used: process `pid` and its children now (the
 * bin's supervisor and its workers; a server of one process alone).
 */
export const serverCpuSeconds = (pid: number): number =>
  [pid, ...childrenOf(pid)].reduce((sum, process) => sum + cpuSeconds(process), 0)

/** Process `pid`'s resident kB of each file it maps, by the file's path. */
const residentFilesKb = (pid: number): Map<string, number> => {
  const files = new Map<string, number>()
  let path: string | undefined
  for (const line of Fs.readFileSync(`/proc/${pid}/smaps`, "utf8").split("\n")) {
    const mapping = /^[0-9a-f]+-[0-9a-f]+ \S+ \S+ \S+ \d+\s*(.*)$/.exec(line)
    if (mapping !== null) path = mapping[1]!.startsWith("/") ? mapping[1] : undefined
    const rss = /^Rss:\s+(\d+) kB/.exec(line)
    if (rss !== null && path !== undefined) files.set(path, (files.get(path) ?? 0) + Number(rss[1]))
  }
  return files
}

/**
 * MB of files (Node's binary and libraries) that more than one of `pids` maps,
 * which `VmHWM` counts in each: beyond the largest, the same pages counted again.
 */
const filesCountedAgainMb = (pids: ReadonlyArray<number>): number => {
  const byFile = new Map<string, { sum: number; largest: number }>()
  for (const pid of pids) {
    for (const [path, kb] of residentFilesKb(pid)) {
      const file = byFile.get(path) ?? { sum: 0, largest: 0 }
      byFile.set(path, { sum: file.sum + kb, largest: Math.max(file.largest, kb) })
    }
  }
  let again = 0
  for (const { largest, sum } of byFile.values()) again += sum - largest
  return again / 1024
}

/**
 * A server's peak resident set size in MB: the sum of `peakRssMb` of process
 * `pid` and of its children now (the bin's supervisor and its workers), each
 * file more than one maps counted once (record 0073). For one process, its `VmHWM`.
 */
export const serverPeakRssMb = (pid: number): number => {
  const pids = [pid, ...childrenOf(pid)]
  return pids.reduce((sum, process) => sum + peakRssMb(process), 0) - filesCountedAgainMb(pids)
}

/** Whether servers and load generator can run on separate cores (`taskset` and two cores). */
export const canPin = (): boolean =>
  Os.availableParallelism() >= 2 && spawnSync("taskset", ["-c", "0", "true"]).status === 0

export interface Started {
  readonly child: ChildProcess
  /** The end of its output so far. */
  readonly output: () => string
}

/** The last 4,000 characters of a file. */
const tailOf = (file: string): string => {
  const size = Fs.statSync(file).size
  const fd = Fs.openSync(file, "r")
  try {
    const bytes = Buffer.alloc(Math.min(size, 4000))
    Fs.readSync(fd, bytes, 0, bytes.length, size - bytes.length)
    return bytes.toString("utf8")
  } finally {
    Fs.closeSync(fd)
  }
}

/** This process's environment without `ANIMAL_STORE_*`: a server runs as shipped, with only the settings given. */
const inherited = (): NodeJS.ProcessEnv =>
  Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith("ANIMAL_STORE_")))

/**
 * Starts `command` in `cwd` (pinned to `core` when given), with this
 * process's environment but its `ANIMAL_STORE_*` variables, and `env`. Its output goes to
 * `logFile` when given, as a server's log goes to a file: nothing on the load
 * generator's core reads it while the load runs (the standalone server writes
 * an access line per request). Otherwise it is piped to this process.
 */
export const start = (
  command: ReadonlyArray<string>,
  options: {
    readonly core?: number | undefined
    readonly env?: Record<string, string>
    readonly logFile?: string
    readonly cwd?: string
  } = {}
): Started => {
  const { core, cwd = root, env = {}, logFile } = options
  const [file, ...args] = core === undefined ? command : ["taskset", "-c", String(core), ...command]
  if (logFile !== undefined) {
    const fd = Fs.openSync(logFile, "a")
    const child = spawn(file!, args, { cwd, env: { ...inherited(), ...env }, stdio: ["ignore", fd, fd] })
    Fs.closeSync(fd)
    return { child, output: () => tailOf(logFile) }
  }
  const child = spawn(file!, args, { cwd, env: { ...inherited(), ...env }, stdio: ["ignore", "pipe", "pipe"] })
  let output = ""
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString("utf8")).slice(-4000)
  }
  child.stdout!.on("data", keep)
  child.stderr!.on("data", keep)
  return { child, output: () => output }
}

/** Resolves once `child` has exited. */
export const exited = (child: ChildProcess): Promise<void> =>
  new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve()
    else child.once("exit", () => resolve())
  })

/** Waits until `url` answers (any status), at most 60 s; throws with the server's output if it exits first. */
export const waitReady = async (name: string, started: Started, url: string): Promise<void> => {
  const deadline = Date.now() + 60_000
  while (Date.now() < deadline) {
    if (started.child.exitCode !== null) throw new Error(`${name} exited at start:\n${started.output()}`)
    try {
      await fetch(url)
      return
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 200))
    }
  }
  throw new Error(`${name} did not answer within 60 s:\n${started.output()}`)
}

/** SIGTERM, then SIGKILL after 10 s; resolves once it has exited. */
export const stop = async (started: Started): Promise<void> => {
  started.child.kill("SIGTERM")
  const timer = setTimeout(() => started.child.kill("SIGKILL"), 10_000)
  await exited(started.child)
  clearTimeout(timer)
}
