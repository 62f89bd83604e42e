/**
 * Reading a served bin's log and sending it requests, for the tests of its
 * processes (the supervisor and its workers).
 */
import * as Fs from "node:fs"
import * as Http from "node:http"
import type { Serving } from "./CliProcess.js"

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** Polls `check` every 20 ms until it answers a value, at most `seconds`. */
export const waitFor = async <A>(what: string, check: () => A | undefined, seconds = 20): Promise<A> => {
  for (const deadline = Date.now() + seconds * 1000; Date.now() < deadline; await sleep(20)) {
    const value = check()
    if (value !== undefined) return value
  }
  throw new Error(`timed out waiting for ${what}`)
}

export interface LogLine {
  readonly message: string
  readonly logLevel: string
  readonly annotations: Record<string, unknown>
}

/** The JSON lines the server's processes wrote on stdout so far. */
export const logLines = (serving: Serving): ReadonlyArray<LogLine> =>
  serving.stdout().split("\n").flatMap((line) => {
    try {
      return line.startsWith("{") ? [{ annotations: {}, ...JSON.parse(line) } as LogLine] : []
    } catch {
      return []
    }
  })

/** The pid of worker `n` that listened last (its listening line says so), once it is not `other`. */
export const workerPid = (serving: Serving, n: number, other?: number) =>
  waitFor(`worker ${n} to listen`, () => {
    const pid = logLines(serving).filter((line) =>
      line.message.startsWith("Animal Store listening") && line.annotations.worker === n
    ).at(-1)?.annotations.pid as number | undefined
    return pid === other ? undefined : pid
  })

/** Waits until worker `n` has said `times` times that it listens (its first start is once). */
export const workerListening = (serving: Serving, n: number, times: number) =>
  waitFor(`worker ${n} to listen`, () =>
    logLines(serving).filter((line) => line.message.startsWith("Animal Store listening") && line.annotations.worker === n)
        .length >= times || undefined)

/** Bytes process `pid` has written so far (responses, log lines, IPC). */
export const bytesWritten = (pid: number): number => Number(/^wchar: (\d+)$/m.exec(Fs.readFileSync(`/proc/${pid}/io`, "utf8"))![1])

export interface Reply {
  readonly status: number
  readonly headers: Http.IncomingHttpHeaders
  readonly body: string
}

/** One request on `agent` (`false`: a connection of its own, which the supervisor hands to the next worker). */
export const request = (
  origin: string,
  path: string,
  options: { readonly key?: string; readonly body?: unknown; readonly agent: Http.Agent | false }
) =>
  new Promise<Reply>((resolve, reject) => {
    const body = options.body === undefined ? undefined : JSON.stringify(options.body)
    const req = Http.request(new URL(path, origin), {
      method: body === undefined ? "GET" : "POST",
      agent: options.agent,
      headers: {
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
    req.setTimeout(10_000, () => req.destroy(new Error("no response within 10 s")))
    req.end(body)
  })
