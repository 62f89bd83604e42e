/**
 * What the benchmarks share about the processes they start and measure:
 * the standalone server's command as a user runs it, a free loopback port
 * (the PostgreSQL tests' helper), and a process's CPU time.
 */
import { spawnSync } from "node:child_process"
import * as Fs from "node:fs"

/** The bundled `animal-store` bin, relative to the repository root (`pnpm build` makes it). */
export const bin = "packages/server/dist/cli/animal-store.js"

/** `node <bin> serve` on 127.0.0.1:`port` with the store at `store`, then `extra` flags. */
export const serveCommand = (port: number, store: string, extra: ReadonlyArray<string> = []): Array<string> => [
  "node",
  bin,
  "serve",
  "--port",
  String(port),
  "--host",
  "127.0.0.1",
  "--store",
  store,
  ...extra
]

/** A TCP port free on 127.0.0.1 now. */
export { freePort } from "../packages/postgres-store/test/support/PgCluster.js"

const ticksPerSecond = Number(spawnSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).stdout.trim()) || 100

/** CPU seconds (user + system) process `pid` has used. */
export const cpuSeconds = (pid: number): number => {
  const stat = Fs.readFileSync(`/proc/${pid}/stat`, "utf8")
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
  return (Number(fields[11]) + Number(fields[12])) / ticksPerSecond
}
