/**
 * The supervisor of `animal-store serve`, the bundled bin as shipped: the
 * default one-worker serve is restarted when its worker dies; while no
 * worker serves, every request gets 503 `service_unavailable` with
 * `Retry-After` (`/healthz` 200, on the operations port too), on new and
 * kept connections and on the operations port, and a worker that keeps dying is restarted less and less
 * often; requests on a kept connection never pass through the supervisor.
 * SIGHUP replaces the workers of `--workers 2` one by one with no request
 * refused, and stops one worker as SIGTERM does. The one worker of the
 * default serve accepts the API's connections itself (record 0067).
 */
import { describe, expect, it } from "@effect/vitest"
import * as Fs from "node:fs"
import { once } from "node:events"
import * as Http from "node:http"
import * as Net from "node:net"
import * as Os from "node:os"
import * as Path from "node:path"
import { listenCopies } from "../src/internal/supervision.js"
import { startServe } from "./support/CliProcess.js"
import type { Reply } from "./support/serving.js"
import { bytesWritten, logLines, request, sleep, waitFor, workerPid } from "./support/serving.js"

const key = "ask_live_supervisiontest00001"
const env = { ANIMAL_STORE_API_KEYS: `${key}:enterprise:1000000:1000000` }

const withFolder = async (f: (folder: string) => Promise<void>) => {
  const folder = Fs.mkdtempSync(Path.join(Os.tmpdir(), "animal-store-supervision-"))
  try {
    await f(folder)
  } finally {
    Fs.rmSync(folder, { recursive: true, force: true })
  }
}

/** Checks the supervisor's refusal: 503 `service_unavailable`, `Retry-After`, an `Error` body, `Connection: close`. */
const expectRefused = (reply: Reply) => {
  expect(reply.status).toBe(503)
  expect(Number(reply.headers["retry-after"])).toBeGreaterThanOrEqual(1)
  expect(reply.headers.connection).toBe("close")
  expect(JSON.parse(reply.body)).toEqual({
    code: "service_unavailable",
    message: "The service is restarting; retry later",
    status: 503
  })
}

/** The IPv4 TCP sockets with local port `port`, as `/proc/net/tcp` lists them (inode 0: not accepted by any process). */
const tcpSockets = (port: number) =>
  Fs.readFileSync("/proc/net/tcp", "utf8").split("\n").slice(1).filter((line) => line.trim() !== "").map((line) => {
    const fields = line.trim().split(/\s+/)
    return {
      localPort: parseInt(fields[1]!.split(":")[1]!, 16),
      remotePort: parseInt(fields[2]!.split(":")[1]!, 16),
      listening: fields[3] === "0A",
      inode: fields[9]!
    }
  }).filter((socket) => socket.localPort === port)

/** The inodes of the sockets open in process `pid`. */
const socketInodes = (pid: number) =>
  Fs.readdirSync(`/proc/${pid}/fd`).flatMap((fd) => {
    try {
      return [/^socket:\[(\d+)\]$/.exec(Fs.readlinkSync(`/proc/${pid}/fd/${fd}`))?.[1]].filter((inode) => inode !== undefined)
    } catch {
      return []
    }
  })

describe("the supervisor of animal-store serve", () => {
  it("lets the one worker of the default serve accept the API's connections itself, from several copies of its socket: while it is stopped, a new connection waits unaccepted, then it answers", () =>
    withFolder(async (folder) => {
      const serving = await startServe(["--store", `sqlite:${Path.join(folder, "animal-store.db")}`, "--access-log", "off"], env)
      try {
        const worker = await workerPid(serving, 1)
        const port = Number(new URL(serving.origin).port)
        const listening = tcpSockets(port).find((socket) => socket.listening)!
        // It holds several copies of the socket, so that a burst of connections is accepted several a turn.
        const copies = () => socketInodes(worker).filter((inode) => inode === listening.inode).length
        for (let waited = 0; copies() < listenCopies && waited < 5_000; waited += 50) await sleep(50)
        expect(copies()).toBe(listenCopies)

        /** A request on a new connection opened while the worker is stopped: whether a process accepted it. */
        const requestWhileStopped = async () => {
          process.kill(worker, "SIGSTOP")
          const socket = Net.connect(port, "127.0.0.1")
          const received: Array<Buffer> = []
          socket.on("data", (chunk: Buffer) => received.push(chunk))
          let accepted: boolean
          try {
            await once(socket, "connect")
            socket.write(`GET /v1/pets?limit=1 HTTP/1.1\r\nhost: localhost\r\nauthorization: Bearer ${key}\r\nconnection: close\r\n\r\n`)
            await sleep(500)
            accepted = tcpSockets(port).find((s) => !s.listening && s.remotePort === socket.localPort)?.inode !== "0"
          } finally {
            process.kill(worker, "SIGCONT")
          }
          await once(socket, "end")
          return { accepted, response: Buffer.concat(received).toString("latin1") }
        }
        // The supervisor accepts until the worker says it has every copy; from then on, idle, it accepts nothing:
        // the connection waits in the socket's backlog for the worker.
        let answered = await requestWhileStopped()
        for (let attempt = 1; answered.accepted && attempt < 10; attempt++) answered = await requestWhileStopped()
        expect(answered.accepted).toBe(false)
        expect(answered.response).toMatch(/^HTTP\/1\.1 200 /)
      } finally {
        serving.child.kill("SIGTERM")
      }
      expect((await serving.exited).code).toBe(0)
    }))

  it("restarts the one worker of the default serve; while it keeps dying every request gets 503 with Retry-After, and the restarts slow down", () =>
    withFolder(async (folder) => {
      const database = Path.join(folder, "animal-store.db")
      const serving = await startServe(["--store", `sqlite:${database}`, "--ops-port", "0"], env)
      const ops = await waitFor("the operations port", () =>
        /Operations listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(serving.stdout())?.[1])
      const kept = new Http.Agent({ keepAlive: true, maxSockets: 1 })
      try {
        const created = await request(serving.origin, "/v1/pets", { key, agent: kept, body: { name: "Rex", categoryId: 1 } })
        expect(created.status).toBe(201)
        const first = await workerPid(serving, 1)
        // The worker's young generation is capped as the heap policy says (16 MiB, both semi-spaces).
        expect(Fs.readFileSync(`/proc/${first}/cmdline`, "utf8").split("\0")).toContain("--max-semi-space-size=8")
        // It allocates from one malloc arena, unless the environment says how many.
        expect(Fs.readFileSync(`/proc/${first}/environ`, "utf8").split("\0"))
          .toContain(`MALLOC_ARENA_MAX=${process.env["MALLOC_ARENA_MAX"] ?? "1"}`)

        // Requests on a kept connection go to the worker alone: the supervisor writes nothing for them.
        const supervisorWrote = bytesWritten(serving.child.pid!)
        const workerWrote = bytesWritten(first)
        for (let i = 0; i < 50; i++) expect((await request(serving.origin, "/v1/pets?limit=1", { key, agent: kept })).status).toBe(200)
        expect(bytesWritten(first) - workerWrote).toBeGreaterThan(50 * 200)
        expect(bytesWritten(serving.child.pid!) - supervisorWrote).toBeLessThan(200)

        // The database is lost while the worker runs; killed, it cannot start again (its store is gone).
        Fs.renameSync(database, Path.join(folder, "kept.db"))
        process.kill(first, "SIGKILL")
        const exits = () =>
          logLines(serving).filter((line) => line.message === "worker exited").map((line) => line.annotations)
        await waitFor("three exits", () => exits().length >= 3 || undefined)
        expect(exits()[0]).toMatchObject({ worker: 1, pid: first, signal: "SIGKILL", code: null })
        expect(exits().slice(1, 3)).toMatchObject([{ worker: 1, code: 1 }, { worker: 1, code: 1 }])
        const delays = exits().map((exit) => exit.restartInMs as number)
        expect(delays.slice(0, 3)).toEqual([100, 200, 400])
        expect(serving.child.exitCode).toBeNull()

        // Meanwhile: every request answered, on a new connection, on the kept one, on the operations port.
        expectRefused(await request(serving.origin, "/v1/pets", { key, agent: false }))
        expectRefused(await request(serving.origin, "/v1/pets", { key, agent: kept, body: { name: "Tom", categoryId: 1 } }))
        expectRefused(await request(serving.origin, "/readyz", { agent: false }))
        expectRefused(await request(ops, "/metrics", { agent: false }))
        expectRefused(await request(ops, "/readyz", { agent: false }))
        const opsHealth = await request(ops, "/healthz", { agent: false })
        expect([opsHealth.status, JSON.parse(opsHealth.body)]).toEqual([200, { status: "ok" }])
        const health = await request(serving.origin, "/healthz", { agent: false })
        expect([health.status, JSON.parse(health.body)]).toEqual([200, { status: "ok" }])
        const refusals = await Promise.all(
          Array.from({ length: 20 }, () => request(serving.origin, "/v1/pets?limit=1", { key, agent: false }))
        )
        refusals.forEach(expectRefused)

        // The database back: the next restart serves it.
        Fs.renameSync(Path.join(folder, "kept.db"), database)
        const restarted = await workerPid(serving, 1, first)
        const listed = await request(serving.origin, "/v1/pets", { key, agent: false })
        expect([listed.status, (JSON.parse(listed.body) as Array<{ name: string }>).map((pet) => pet.name)]).toEqual([200, ["Rex"]])
        expect(Fs.existsSync(`/proc/${restarted}`)).toBe(true)
      } finally {
        kept.destroy()
        serving.child.kill("SIGTERM")
      }
      expect((await serving.exited).code).toBe(0)
    }), 60_000)

  it("SIGHUP replaces the workers of --workers 2 one by one, each new one serving before the old one drains: no request refused under load", () =>
    withFolder(async (folder) => {
      const serving = await startServe(["--store", `sqlite:${Path.join(folder, "animal-store.db")}`, "--workers", "2"], env)
      await waitFor("both workers", () => logLines(serving).some((line) => line.message === "Animal Store serving with 2 workers") || undefined)
      const before = [await workerPid(serving, 1), await workerPid(serving, 2)]
      const agent = new Http.Agent({ keepAlive: true, maxSockets: 6 })
      const statuses = new Map<number, number>()
      const failures: Array<string> = []
      let running = true
      const count = (reply: Reply) => statuses.set(reply.status, (statuses.get(reply.status) ?? 0) + 1)
      // Six clients on kept connections and two on a new connection each time, GET and POST.
      const load = Promise.all(Array.from({ length: 8 }, async (_, client) => {
        for (let n = 0; running; n++) {
          const options = { key, agent: client < 6 ? agent : false as const }
          try {
            count(
              n % 2 === 0
                ? await request(serving.origin, "/v1/pets?limit=5", options)
                : await request(serving.origin, "/v1/pets", { ...options, body: { name: `pet ${client}-${n}`, categoryId: 1 } })
            )
          } catch (error) {
            failures.push(String(error))
          }
        }
      }))
      const total = () => [...statuses.values()].reduce((sum, n) => sum + n, 0)
      try {
        try {
          await waitFor("some load", () => total() >= 100 || undefined)
          serving.child.kill("SIGHUP")
          await waitFor("the rolling restart", () =>
            logLines(serving).some((line) => line.message === "Rolling restart done: every worker replaced") || undefined, 30)
          const atEnd = total()
          await waitFor("load after it", () => total() >= atEnd + 50 || undefined)
        } finally {
          running = false
          await load
          agent.destroy()
        }
        expect(failures).toEqual([])
        expect([...statuses.keys()].sort()).toEqual([200, 201])
        const replaced = logLines(serving).filter((line) => line.message === "worker replaced").map((line) => line.annotations)
        expect(replaced).toMatchObject([{ worker: 1, replaced: before[0] }, { worker: 2, replaced: before[1] }])
        const after = [await workerPid(serving, 1), await workerPid(serving, 2)]
        expect(after.filter((pid) => before.includes(pid))).toEqual([])
        expect(replaced.map((line) => line.pid)).toEqual(after)
        // Each replaced worker drained: it exited by itself (no "worker exited" restart).
        expect(logLines(serving).filter((line) => line.message === "worker exited")).toEqual([])
        for (const pid of before) expect(Fs.existsSync(`/proc/${pid}`)).toBe(false)
      } finally {
        serving.child.kill("SIGTERM")
      }
      expect((await serving.exited).code).toBe(0)
    }), 60_000)

  it("restarts a worker on the memory store with its provisioned keys (and a new, empty store)", async () => {
    const serving = await startServe(["--store", "memory"], env)
    try {
      expect((await request(serving.origin, "/v1/pets", { key, agent: false, body: { name: "Rex", categoryId: 1 } })).status).toBe(201)
      const first = await workerPid(serving, 1)
      process.kill(first, "SIGKILL")
      await workerPid(serving, 1, first)
      const listed = await request(serving.origin, "/v1/pets", { key, agent: false })
      expect([listed.status, listed.body]).toEqual([200, "[]"])
    } finally {
      serving.child.kill("SIGTERM")
    }
    expect((await serving.exited).code).toBe(0)
  })

  it("SIGHUP stops one worker as SIGTERM does: drained, the store closed, exit 0", async () => {
    const serving = await startServe(["--store", "memory"], env)
    expect((await request(serving.origin, "/v1/pets", { key, agent: false })).status).toBe(200)
    await sleep(100)
    serving.child.kill("SIGHUP")
    const exited = await serving.exited
    expect(exited.code).toBe(0)
    const messages = logLines(serving).map((line) => line.message)
    const steps = ["SIGHUP received: shutting down", "Draining: no new connections", "Drained: every request in flight answered", "Store closed"]
    expect(messages.filter((message) => steps.includes(message))).toEqual(steps)
  })
})
