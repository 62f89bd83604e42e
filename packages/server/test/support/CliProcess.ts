import * as Http from "node:http"
import * as ChildProcess from "node:child_process"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"

export const bin = Path.resolve(Path.dirname(fileURLToPath(import.meta.url)), "../../dist/cli/animal-store.js")

/** The environment of the test process without any variable the CLI reads. */
export const cleanEnv = (extra: Record<string, string> = {}): Record<string, string> => {
  const env: Record<string, string> = {}
  for (const [name, value] of Object.entries(process.env)) {
    if (value !== undefined && !name.startsWith("ANIMAL_STORE_") && name !== "PORT" && name !== "HOST") env[name] = value
  }
  return { ...env, ...extra }
}

export interface Finished {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
}

/** Runs `node <args>` to its end (this Node, unless `options.node` names another), collecting its output. */
export const runNode = (
  args: ReadonlyArray<string>,
  options: { readonly env: Record<string, string>; readonly cwd?: string | undefined; readonly node?: string | undefined }
) =>
  new Promise<Finished>((resolve, reject) => {
    const child = ChildProcess.spawn(options.node ?? process.execPath, args, { env: options.env, cwd: options.cwd })
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (chunk) => (stdout += chunk))
    child.stderr.on("data", (chunk) => (stderr += chunk))
    child.on("error", reject)
    child.on("close", (code) => resolve({ code, stdout, stderr }))
  })

/** Runs the CLI to its end. */
export const runCli = (args: ReadonlyArray<string>, env: Record<string, string> = {}, cwd?: string) =>
  runNode([bin, ...args], { env: cleanEnv(env), cwd })

export interface Serving {
  readonly origin: string
  readonly child: ChildProcess.ChildProcess
  readonly stdout: () => string
  readonly exited: Promise<Finished>
}

/** Starts `serve` on a random port and waits until it listens. */
export const startServe = (args: ReadonlyArray<string>, env: Record<string, string> = {}, cwd?: string) =>
  new Promise<Serving>((resolve, reject) => {
    const child = ChildProcess.spawn(process.execPath, [bin, "serve", "--port", "0", ...args], { env: cleanEnv(env), cwd })
    let stdout = ""
    let stderr = ""
    const exited = new Promise<Finished>((done) => child.on("close", (code) => done({ code, stdout, stderr })))
    child.stderr.on("data", (chunk) => (stderr += chunk))
    child.stdout.on("data", (chunk) => {
      stdout += chunk
      const match = /listening on (http:\/\/127\.0\.0\.1:\d+)\/v1/.exec(stdout)
      if (match) resolve({ origin: match[1]!, child, stdout: () => stdout, exited })
    })
    exited.then((finished) => reject(new Error(`serve exited early: ${finished.stderr}`)))
  })

/** Sends the headers and the first bytes of a POST body on a connection of its own; `finish` sends the rest and resolves with the status. */
export const halfSentPost = (origin: string, secret: string, body: string) =>
  new Promise<{ finish: () => Promise<number> }>((resolve) => {
    const request = Http.request(new URL("/v1/pets", origin), {
      method: "POST",
      agent: false,
      headers: { "content-type": "application/json", "content-length": Buffer.byteLength(body), authorization: `Bearer ${secret}` }
    })
    const status = new Promise<number>((done, fail) => {
      request.on("response", (response) => {
        response.resume()
        done(response.statusCode ?? 0)
      })
      request.on("error", fail)
    })
    request.flushHeaders()
    request.write(body.slice(0, 10), () => resolve({ finish: () => (request.end(body.slice(10)), status) }))
  })
