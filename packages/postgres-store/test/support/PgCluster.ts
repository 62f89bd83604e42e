/**
 * A throwaway PostgreSQL cluster for the tests: `initdb` in a new temporary
 * folder, `pg_ctl start` on a free loopback port, removed when stopped.
 *
 * PostgreSQL refuses to run as root: under root the folder is given to an
 * unprivileged user (`nobody`) and the server binaries run as that user.
 * The binaries are the Debian package `postgresql` (15 here), found under
 * `/usr/lib/postgresql/<version>/bin` or at `$PG_BIN`. When they are missing
 * or the cluster cannot start, `start` throws with the reason: the tests fail,
 * they never skip.
 */
import * as ChildProcess from "node:child_process"
import * as Fs from "node:fs"
import * as Net from "node:net"
import * as Os from "node:os"
import * as Path from "node:path"
import Pg from "pg"

export interface PgCluster {
  /** The superuser's URL of the `postgres` database (with its password). */
  readonly url: string
  readonly port: number
  readonly password: string
  /** The URL of `database` for the superuser. */
  readonly urlOf: (database: string) => string
  /** Creates a new empty database and answers its URL. */
  readonly createDatabase: (name?: string) => Promise<string>
  /** Runs one statement on `database` (default `postgres`). */
  readonly query: <A = Record<string, unknown>>(
    text: string,
    params?: ReadonlyArray<unknown>,
    database?: string
  ) => Promise<ReadonlyArray<A>>
  /** Stops the server (`pg_ctl stop -m fast`: sessions are ended), keeping the data. */
  readonly stopServer: () => Promise<void>
  /** Starts the stopped server again, on the same port. */
  readonly startServer: () => Promise<void>
  /** Stops the server and removes the cluster. */
  readonly destroy: () => Promise<void>
}

const findBin = (): string => {
  const candidates = process.env["PG_BIN"] !== undefined
    ? [process.env["PG_BIN"]]
    : (() => {
      try {
        return Fs.readdirSync("/usr/lib/postgresql")
          .filter((version) => /^\d+$/.test(version))
          .sort((a, b) => Number(b) - Number(a))
          .map((version) => `/usr/lib/postgresql/${version}/bin`)
      } catch {
        return []
      }
    })()
  const found = candidates.find((bin) => Fs.existsSync(Path.join(bin, "initdb")) && Fs.existsSync(Path.join(bin, "pg_ctl")))
  if (found === undefined) {
    throw new Error(
      `PostgreSQL server binaries not found (looked for initdb and pg_ctl in ${
        candidates.length === 0 ? "/usr/lib/postgresql/<version>/bin" : candidates.join(", ")
      }). Install the Debian package: apt-get install -y postgresql (.ci/run does), or set PG_BIN.`
    )
  }
  return found
}

/** The unprivileged user the server runs as when the tests run as root. */
const serverUser = (): { readonly uid: number; readonly gid: number } | undefined => {
  if (process.getuid?.() !== 0) return undefined
  const line = Fs.readFileSync("/etc/passwd", "utf8").split("\n").find((entry) => entry.startsWith("nobody:"))
  if (line === undefined) throw new Error("Running as root, and there is no user nobody to run PostgreSQL as")
  const [, , uid, gid] = line.split(":")
  return { uid: Number(uid), gid: Number(gid) }
}

/** A TCP port free on 127.0.0.1 now (the benchmarks use it too). */
export const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const server = Net.createServer()
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as Net.AddressInfo
      server.close(() => resolve(port))
    })
  })

const run = (
  command: string,
  args: ReadonlyArray<string>,
  user: { readonly uid: number; readonly gid: number } | undefined,
  cwd: string
) =>
  new Promise<string>((resolve, reject) => {
    const child = ChildProcess.spawn(command, args, {
      cwd,
      env: { PATH: process.env["PATH"] ?? "/usr/bin:/bin", LANG: "C", LC_ALL: "C" },
      stdio: ["ignore", "pipe", "pipe"],
      ...(user === undefined ? {} : { uid: user.uid, gid: user.gid })
    })
    let output = ""
    child.stdout.on("data", (chunk) => (output += chunk))
    child.stderr.on("data", (chunk) => (output += chunk))
    child.on("error", (error) => reject(new Error(`${Path.basename(command)} could not run: ${error.message}`)))
    child.on("close", (code) =>
      code === 0 ? resolve(output) : reject(new Error(`${Path.basename(command)} ${args.join(" ")} failed (exit ${code}):\n${output}`))
    )
  })

let counter = 0

/**
 * Creates and starts a cluster. `settings` are extra server settings
 * (`-c name=value`).
 */
export const start = async (settings: Readonly<Record<string, string | number>> = {}): Promise<PgCluster> => {
  const bin = findBin()
  const user = serverUser()
  const folder = Fs.mkdtempSync(Path.join(Os.tmpdir(), "animal-store-pg-"))
  const data = Path.join(folder, "data")
  const password = `pw-${process.pid}-${Date.now().toString(36)}`
  Fs.writeFileSync(Path.join(folder, "pwfile"), `${password}\n`)
  if (user !== undefined) {
    Fs.chownSync(folder, user.uid, user.gid)
    Fs.chownSync(Path.join(folder, "pwfile"), user.uid, user.gid)
  }
  const port = await freePort()
  const log = Path.join(folder, "server.log")
  const options = [
    `-p ${port}`,
    `-k ${folder}`,
    "-c listen_addresses=127.0.0.1",
    // Test speed: nothing here survives the machine crashing anyway.
    "-c fsync=off",
    "-c full_page_writes=off",
    "-c max_connections=200",
    "-c shared_buffers=32MB",
    ...Object.entries(settings).map(([name, value]) => `-c ${name}=${value}`)
  ].join(" ")
  const pgCtl = (...args: ReadonlyArray<string>) => run(Path.join(bin, "pg_ctl"), args, user, folder)
  const serverLog = () => {
    try {
      return Fs.readFileSync(log, "utf8").split("\n").slice(-20).join("\n")
    } catch {
      return ""
    }
  }
  const startServer = async () => {
    try {
      await pgCtl("start", "-D", data, "-l", log, "-w", "-t", "30", "-o", options)
    } catch (error) {
      throw new Error(`PostgreSQL did not start: ${(error as Error).message}\nserver log:\n${serverLog()}`)
    }
  }
  const stopServer = async () => {
    await pgCtl("stop", "-D", data, "-m", "fast", "-w", "-t", "30")
  }
  try {
    await run(
      Path.join(bin, "initdb"),
      ["-D", data, "-U", "postgres", "--pwfile", Path.join(folder, "pwfile"), "--auth-local=trust", "--auth-host=scram-sha-256", "-E", "UTF8", "--locale=C", "--no-sync"],
      user,
      folder
    )
    await startServer()
  } catch (error) {
    Fs.rmSync(folder, { recursive: true, force: true })
    throw error
  }
  const urlOf = (database: string) =>
    `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}/${database}`
  const query = async <A,>(text: string, params: ReadonlyArray<unknown> = [], database = "postgres") => {
    const client = new Pg.Client({ connectionString: urlOf(database) })
    await client.connect()
    try {
      return (await client.query(text, params as Array<unknown>)).rows as ReadonlyArray<A>
    } finally {
      await client.end()
    }
  }
  let destroyed = false
  return {
    url: urlOf("postgres"),
    port,
    password,
    urlOf,
    createDatabase: async (name) => {
      const database = name ?? `test_${process.pid}_${++counter}_${Date.now().toString(36)}`
      await query(`CREATE DATABASE "${database}"`)
      return urlOf(database)
    },
    query,
    stopServer,
    startServer,
    destroy: async () => {
      if (destroyed) return
      destroyed = true
      try {
        await pgCtl("stop", "-D", data, "-m", "immediate", "-w", "-t", "30")
      } catch {
        // already stopped
      }
      Fs.rmSync(folder, { recursive: true, force: true })
    }
  }
}
