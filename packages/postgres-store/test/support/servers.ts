/**
 * The built `animal-store` command (packages/server/dist/cli, made by
 * `pnpm build` / `pnpm test`), run as child processes on a PostgreSQL store.
 */
import * as ChildProcess from "node:child_process"
import * as Fs from "node:fs"
import * as Http from "node:http"
import * as Path from "node:path"

export const bin = Path.resolve(import.meta.dirname, "../../../server/dist/cli/animal-store.js")

const cleanEnv = (extra: Record<string, string>): Record<string, string> => {
  const env: Record<string, string> = {}
  for (const [name, value] of Object.entries(process.env)) {
    if (value !== undefined && !name.startsWith("ANIMAL_STORE_") && name !== "PORT" && name !== "HOST") env[name] = value
  }
  return { ...env, ...extra }
}

const checkBin = () => {
  if (!Fs.existsSync(bin)) throw new Error(`${bin} is missing: run pnpm build first`)
}

export interface Finished {
  readonly code: number | null
  readonly signal: NodeJS.Signals | null
  readonly stdout: string
  readonly stderr: string
}

/** Runs a CLI command to its end. */
export const runCli = (args: ReadonlyArray<string>, env: Record<string, string> = {}) =>
  new Promise<Finished>((resolve, reject) => {
    checkBin()
    const child = ChildProcess.spawn(process.execPath, [bin, ...args], { env: cleanEnv(env) })
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (chunk) => (stdout += chunk))
    child.stderr.on("data", (chunk) => (stderr += chunk))
    child.on("error", reject)
    child.on("close", (code, signal) => resolve({ code, signal, stdout, stderr }))
  })

export interface Server {
  readonly origin: string
  readonly child: ChildProcess.ChildProcess
  /** Everything the process wrote so far, stdout and stderr. */
  readonly output: () => string
  readonly exited: Promise<Finished>
  readonly alive: () => boolean
}

/** Starts `serve --port 0` on `store` and waits until it listens. */
export const startServer = (store: string, env: Record<string, string> = {}, args: ReadonlyArray<string> = []) =>
  new Promise<Server>((resolve, reject) => {
    checkBin()
    const child = ChildProcess.spawn(
      process.execPath,
      [bin, "serve", "--port", "0", "--store", store, "--access-log", "off", ...args],
      { env: cleanEnv(env) }
    )
    let stdout = ""
    let stderr = ""
    let running = true
    const exited = new Promise<Finished>((done) =>
      child.on("close", (code, signal) => {
        running = false
        done({ code, signal, stdout, stderr })
      })
    )
    child.stderr.on("data", (chunk) => (stderr += chunk))
    child.stdout.on("data", (chunk) => {
      stdout += chunk
      const match = /listening on (http:\/\/127\.0\.0\.1:\d+)\/v1/.exec(stdout)
      if (match) {
        resolve({ origin: match[1]!, child, output: () => stdout + stderr, exited, alive: () => running })
      }
    })
    void exited.then((finished) => reject(new Error(`serve exited early (${finished.code}): ${finished.stderr}`)))
  })

export const stopServer = async (server: Server) => {
  if (server.alive()) server.child.kill("SIGKILL")
  await server.exited
}

const agent = new Http.Agent({ keepAlive: true, maxSockets: 64 })

export interface Reply {
  readonly status: number
  readonly headers: Http.IncomingHttpHeaders
  readonly body: string
}

/** One HTTP request (keep-alive); a network failure rejects. */
export const request = (
  origin: string,
  path: string,
  options: {
    readonly method?: string
    readonly key?: string
    readonly body?: unknown
    readonly headers?: Record<string, string>
  } = {}
) =>
  new Promise<Reply>((resolve, reject) => {
    const body = options.body === undefined ? undefined : JSON.stringify(options.body)
    const req = Http.request(new URL(path, origin), {
      method: options.method ?? (body === undefined ? "GET" : "POST"),
      agent,
      headers: {
        ...options.headers,
        ...(options.key === undefined ? {} : { authorization: `Bearer ${options.key}` }),
        ...(body === undefined ? {} : { "content-type": "application/json", "content-length": Buffer.byteLength(body) })
      }
    }, (res) => {
      let text = ""
      res.setEncoding("utf8")
      res.on("data", (chunk) => (text += chunk))
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }))
      res.on("error", reject)
    })
    req.on("error", reject)
    req.end(body)
  })

/**
 * Waits, when needed, until a UTC minute has at least `seconds` left, so a
 * burst counted in the minute window does not straddle two windows.
 */
export const awaitRoomInMinute = async (seconds: number) => {
  const left = 60 - (Date.now() % 60_000) / 1000
  if (left < seconds) await new Promise((resolve) => setTimeout(resolve, left * 1000 + 200))
}
