/**
 * The operations features of `animal-store serve` as shipped (the bundled
 * bin): probes not counted, `X-Request-Id` on every kind of response and in
 * its access line (with the key id of a throttled key), `--log-level` and
 * its variable, and the shutdown on SIGTERM (`Connection: close`, idle
 * connections closed, each step logged).
 * The 503 comes from a SQLite commit that fails (the WAL file made immutable):
 * `chattr` needs root and a file system with the immutable flag.
 */
import { describe, expect, it } from "@effect/vitest"
import * as ChildProcess from "node:child_process"
import * as Fs from "node:fs"
import * as Net from "node:net"
import * as Os from "node:os"
import * as Path from "node:path"
import type { Serving } from "./support/CliProcess.js"
import { bin, cleanEnv, runCli, startServe } from "./support/CliProcess.js"

const key = "ask_live_operationstest000001"
const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

type Line = { readonly message: string; readonly logLevel: string; readonly annotations: Record<string, unknown> }

/** The JSON lines of stdout so far (a line without annotations has none). */
const linesOf = (stdout: string): ReadonlyArray<Line> =>
  stdout.split("\n").filter((line) => line.startsWith("{")).map((line) => ({ annotations: {}, ...JSON.parse(line) }) as Line)

/** Polls `found` until it gives a value, for at most 10 s. */
const eventually = async <A>(found: () => A | undefined): Promise<A> => {
  for (const deadline = Date.now() + 10_000; Date.now() < deadline;) {
    const value = found()
    if (value !== undefined) return value
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
  throw new Error("not found in time")
}

/** The access line of the request `requestId`, once written. */
const accessLine = (serving: Serving, requestId: string) =>
  eventually(() => linesOf(serving.stdout()).find((line) => line.annotations.requestId === requestId))

const stop = async (serving: { readonly child: ChildProcess.ChildProcess; readonly exited: Promise<unknown> }) => {
  serving.child.kill("SIGTERM")
  await serving.exited
}

/** A raw connection: what it received, whether the server closed it. */
const connect = (origin: string) =>
  new Promise<{ readonly socket: Net.Socket; readonly received: () => string; readonly ended: () => boolean }>(
    (resolve, reject) => {
      const url = new URL(origin)
      let received = ""
      let ended = false
      const socket = Net.connect(Number(url.port), url.hostname, () => resolve({ socket, received: () => received, ended: () => ended }))
      socket.setEncoding("latin1")
      socket.on("data", (chunk: string) => (received += chunk))
      socket.on("end", () => (ended = true))
      socket.on("close", () => (ended = true))
      socket.on("error", reject)
    }
  )

/** A free port on 127.0.0.1 (for a server that logs nothing, so cannot say its port). */
const freePort = () =>
  new Promise<number>((resolve) => {
    const server = Net.createServer().listen(0, "127.0.0.1", () => {
      const { port } = server.address() as Net.AddressInfo
      server.close(() => resolve(port))
    })
  })

/** `serve` on a free port, ready once `/healthz` answers (whatever it logs). */
const startQuiet = async (args: ReadonlyArray<string>, env: Record<string, string>) => {
  const port = await freePort()
  const child = ChildProcess.spawn(process.execPath, [bin, "serve", "--port", String(port), ...args], { env: cleanEnv(env) })
  let stdout = ""
  child.stdout.on("data", (chunk) => (stdout += chunk))
  const exited = new Promise<number | null>((done) => child.on("close", done))
  const origin = `http://127.0.0.1:${port}`
  for (const deadline = Date.now() + 10_000;;) {
    const ok = await fetch(`${origin}/healthz`).then((r) => r.ok, () => false)
    if (ok) break
    if (Date.now() > deadline) throw new Error("serve did not start")
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  return { origin, child, exited, stdout: () => stdout }
}

describe("the probes of the standalone server", () => {
  it("are not counted: after 61 probes and more, a request without a key is still the first of its minute", async () => {
    const serving = await startServe(["--store", "memory"])
    try {
      for (let i = 0; i < 61; i++) {
        const response = await fetch(`${serving.origin}/healthz`)
        expect(response.status).toBe(200)
        expect(await response.json()).toEqual({ status: "ok" })
      }
      for (const method of ["GET", "HEAD"]) {
        const response = await fetch(`${serving.origin}/readyz`, { method })
        expect(response.status).toBe(200)
        expect(response.headers.get("x-ratelimit-remaining")).toBeNull()
      }
      const counted = await fetch(`${serving.origin}/v1/openapi.json`)
      expect(counted.status).toBe(200)
      expect(counted.headers.get("x-ratelimit-limit")).toBe("60")
      expect(counted.headers.get("x-ratelimit-remaining")).toBe("59")
      // Probes are not logged at the default level.
      await accessLine(serving, counted.headers.get("x-request-id")!)
      expect(linesOf(serving.stdout()).filter((line) => line.annotations.path === "/healthz")).toEqual([])
    } finally {
      await stop(serving)
    }
  }, 30_000)
})

describe("X-Request-Id on the standalone server", () => {
  it("is on the 200, 400, 401, 404, 429 and 503 responses and in their access lines; the 429's carries the key id", async () => {
    const folder = Fs.mkdtempSync(Path.join(Os.tmpdir(), "animal-store-operations-"))
    const filename = Path.join(folder, "animal-store.db")
    const wal = `${filename}-wal`
    const chattr = (flag: "+i" | "-i") => ChildProcess.execFileSync("chattr", [flag, wal], { stdio: "pipe" })
    const serving = await startServe(["--store", `sqlite:${filename}`], { ANIMAL_STORE_API_KEYS: `${key}:enterprise:5:100` })
    const send = (path: string, requestId: string | undefined, init: RequestInit = {}) =>
      fetch(`${serving.origin}${path}`, {
        ...init,
        headers: { ...(init.headers as Record<string, string>), ...(requestId === undefined ? {} : { "x-request-id": requestId }) }
      })
    const withKey = { authorization: `Bearer ${key}` }
    const create = { method: "POST", headers: { ...withKey, "content-type": "application/json" }, body: '{"name":"Rex","categoryId":1}' }
    try {
      const answered: Array<readonly [number, Response]> = []
      answered.push([200, await send("/v1/pets", "ops-200", { headers: withKey })])
      answered.push([201, await send("/v1/pets", undefined, create)])
      chattr("+i")
      try {
        answered.push([503, await send("/v1/pets", "ops-503", create)])
      } finally {
        chattr("-i")
      }
      answered.push([400, await send("/v1/pets?limit=0", "ops-400", { headers: withKey })])
      answered.push([401, await send("/v1/pets", "ops-401")])
      answered.push([404, await send("/nowhere", "ops-404")])
      let limited: Response | undefined
      for (let i = 0; i < 6 && limited === undefined; i++) {
        const response = await send("/v1/pets", `ops-429-${i}`, { headers: withKey })
        if (response.status === 429) limited = response
      }
      expect(limited).toBeDefined()
      answered.push([429, limited!])

      for (const [status, response] of answered) {
        expect(response.status).toBe(status)
        const requestId = response.headers.get("x-request-id")!
        expect(requestId).toMatch(status === 201 ? uuid : status === 429 ? /^ops-429-\d$/ : new RegExp(`^ops-${status}$`))
        expect((await accessLine(serving, requestId)).annotations).toMatchObject({ status })
      }
      const keyId = (await accessLine(serving, "ops-200")).annotations.keyId
      expect(keyId).toEqual(expect.any(String))
      expect((await accessLine(serving, limited!.headers.get("x-request-id")!)).annotations.keyId).toBe(keyId)
      expect((await accessLine(serving, "ops-401")).annotations.keyId).toBeUndefined()
      // The SQLite store answers its readiness check (`SELECT 1`).
      const ready = await send("/readyz", "ops-ready")
      expect([ready.status, ready.headers.get("x-request-id")]).toEqual([200, "ops-ready"])
    } finally {
      if (Fs.existsSync(wal)) chattr("-i")
      await stop(serving)
      Fs.rmSync(folder, { recursive: true, force: true })
    }
  }, 60_000)
})

describe("--log-level", () => {
  it("ANIMAL_STORE_LOG_LEVEL=debug also logs the probes, at DEBUG", async () => {
    const serving = await startQuiet(["--store", "memory"], { ANIMAL_STORE_LOG_LEVEL: "debug" })
    try {
      const probe = await fetch(`${serving.origin}/readyz`, { headers: { "x-request-id": "probe-1" } })
      expect(probe.status).toBe(200)
      const line = await eventually(() => linesOf(serving.stdout()).find((line) => line.annotations.requestId === "probe-1"))
      expect(line).toMatchObject({ message: "http.request", logLevel: "DEBUG", annotations: { path: "/readyz", status: 200 } })
    } finally {
      await stop(serving)
    }
  }, 30_000)

  it("the flag wins over the variable: with --log-level warn nothing at info is logged, from start to exit", async () => {
    const serving = await startQuiet(["--store", "memory", "--log-level", "warn"], { ANIMAL_STORE_LOG_LEVEL: "debug" })
    expect((await fetch(`${serving.origin}/v1/pets`)).status).toBe(401)
    expect((await fetch(`${serving.origin}/healthz`)).status).toBe(200)
    await stop(serving)
    expect(await serving.exited).toBe(0)
    expect(serving.stdout()).toBe("")
  }, 30_000)

  it("refuses any other value, from the flag or the variable, with one line", async () => {
    for (const [args, env] of [
      [["--log-level", "trace"], {}],
      [["--log-level=warning"], {}],
      [["--log-level"], {}],
      [[], { ANIMAL_STORE_LOG_LEVEL: "verbose" }]
    ] as const) {
      const finished = await runCli(["serve", "--store", "memory", "--port", "0", ...args], env)
      expect(finished.code).not.toBe(0)
      expect(finished.stdout).toBe("")
      expect(finished.stderr.trim().split("\n")).toHaveLength(1)
      expect(finished.stderr).toMatch(/^animal-store: --log-level: expected debug, info, warn, error or none/)
    }
  }, 30_000)
})

describe("SIGTERM", () => {
  it("closes idle connections at once, answers the request in flight with Connection: close, logs each step and exits 0", async () => {
    const serving = await startServe(["--store", "memory"], { ANIMAL_STORE_API_KEYS: `${key}:pro` })
    const idle = await connect(serving.origin)
    idle.socket.write("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
    await eventually(() => idle.received().includes('{"status":"ok"}') || undefined)
    expect(idle.received()).toMatch(/\r\nConnection: keep-alive\r\n/i)

    // A request in flight: its handler waits for the body it asked for (`100 Continue`).
    const body = '{"name":"Rex","categoryId":1}'
    const inFlight = await connect(serving.origin)
    inFlight.socket.write(
      `POST /v1/pets HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\n` +
        `Content-Length: ${body.length}\r\nExpect: 100-continue\r\nX-Request-Id: in-flight\r\n\r\n`
    )
    await eventually(() => inFlight.received().startsWith("HTTP/1.1 100 Continue") || undefined)

    serving.child.kill("SIGTERM")
    await eventually(() => idle.ended() || undefined)
    expect(inFlight.ended()).toBe(false)

    inFlight.socket.write(body)
    await eventually(() => inFlight.ended() || undefined)
    const response = inFlight.received().slice(inFlight.received().indexOf("\r\n\r\n") + 4)
    expect(response).toMatch(/^HTTP\/1\.1 201 /)
    expect(response).toMatch(/\r\nconnection: close\r\n/i)
    expect(response).toMatch(/\r\nx-request-id: in-flight\r\n/i)

    expect((await serving.exited).code).toBe(0)
    const lines = linesOf(serving.stdout())
    const messages = lines.map((line) => line.message)
    const steps = ["SIGTERM received: shutting down", "Draining: no new connections", "Drained: every request in flight answered", "Store closed"]
    expect(messages.filter((message) => steps.includes(message))).toEqual(steps)
    // The request in flight is answered (and logged) while the server drains.
    const answered = lines.findIndex((line) => line.annotations.requestId === "in-flight")
    expect(answered).toBeGreaterThan(messages.indexOf(steps[1]!))
    expect(answered).toBeLessThan(messages.indexOf(steps[2]!))
    expect(linesOf(serving.stdout())[0]).toMatchObject({
      message: expect.stringMatching(/^Animal Store listening on http:\/\/127\.0\.0\.1:\d+\/v1$/),
      annotations: { store: "memory", environment: "production" }
    })
  }, 30_000)
})
