/**
 * `animal-store serve --workers 2`, the bundled bin as shipped: the limits of
 * a key stay exact with its requests spread over the workers (SQLite and
 * PostgreSQL); a worker killed with SIGKILL and one with SIGBUS under load are
 * restarted and logged, service goes on, and every acknowledged animal is
 * stored (also after the whole server restarts); SIGTERM lets a request in
 * flight finish, then the server exits 0. With `--ops-port` the supervisor
 * holds the operations port, logged once: `/metrics` is the service's (the
 * workers' requests summed, counters never lower after a worker is killed,
 * each worker's process metrics labelled with it), `/healthz` and `/readyz`
 * there are the service's, and a key its admin API issues is accepted by
 * every worker.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import * as Fs from "node:fs"
import * as Http from "node:http"
import * as Net from "node:net"
import * as Os from "node:os"
import * as Path from "node:path"
import parsePrometheus from "parse-prometheus-text-format"
import * as PgCluster from "../../postgres-store/test/support/PgCluster.js"
import type { Serving } from "./support/CliProcess.js"
import { halfSentPost, runCli, startServe } from "./support/CliProcess.js"
import * as Metrics from "./support/metrics.js"
import { bytesWritten, logLines, request, sleep, waitFor, workerListening, workerPid } from "./support/serving.js"

const temporaryFolder = () => Fs.mkdtempSync(Path.join(Os.tmpdir(), "animal-store-workers-"))

/** Starts `serve --workers 2` and waits until both workers listen. */
const startWorkers = async (args: ReadonlyArray<string>, env: Record<string, string>): Promise<Serving> => {
  const serving = await startServe(["--workers", "2", ...args], env)
  await waitFor("both workers", () => logLines(serving).some((line) => line.message === "Animal Store serving with 2 workers") || undefined)
  return serving
}

/**
 * `limit + 20` requests of an enterprise key allowing `limit` a minute and a
 * day (so a minute's end during the burst changes nothing), each on a
 * connection of its own, all at once: exactly `limit` are accepted, and
 * both workers answered.
 */
const checkExactLimit = async (store: string, limit: number) => {
  const key = `ask_live_workerslimit${Date.now().toString(36)}0000`
  const serving = await startWorkers(["--store", store, "--access-log", "off"], {
    ANIMAL_STORE_API_KEYS: `${key}:enterprise:${limit}:${limit}`
  })
  try {
    const pids = [await workerPid(serving, 1), await workerPid(serving, 2)]
    const before = pids.map(bytesWritten)
    const replies = await Promise.all(
      Array.from({ length: limit + 20 }, () => request(serving.origin, "/v1/pets?limit=1", { key, agent: false }))
    )
    expect(replies.filter((reply) => reply.status === 200)).toHaveLength(limit)
    expect(replies.filter((reply) => reply.status !== 200 && reply.status !== 429)).toEqual([])
    // each worker wrote at least a fifth of the responses (a response is over 200 bytes)
    pids.forEach((pid, i) => expect(bytesWritten(pid) - before[i]!).toBeGreaterThan(((limit + 20) / 5) * 200))
  } finally {
    serving.child.kill("SIGTERM")
  }
  expect((await serving.exited).code).toBe(0)
}


/** The requests counted by `GET /metrics` (every series of the request histogram), and whether process metrics are there. */
const scrape = async (ops: string) => {
  const response = await fetch(`${ops}/metrics`)
  expect(response.status).toBe(200)
  // Read without the histograms' TYPE lines, each `_count` series is a sample of its own (as in Metrics.e2e.test.ts).
  const families = parsePrometheus((await response.text()).replace(/^# TYPE \S+ histogram\n/gm, ""))
  const count = families.find((family) => family.name === "http_server_request_duration_seconds_count")
  return {
    requests: (count?.metrics ?? []).reduce((sum, sample) => sum + Number(sample.value), 0),
    process: families.some((family) => family.name === "process_cpu_seconds_total")
  }
}

describe("animal-store serve --workers 2", () => {
  it("holds the operations port in the supervisor, logged once: metrics of every worker summed, keys issued there accepted by all", async () => {
    const folder = temporaryFolder()
    const token = "workers-admin-token-0123456789abcdef"
    const serving = await startWorkers(["--store", `sqlite:${Path.join(folder, "animal-store.db")}`, "--ops-port", "0", "--access-log", "off"], {
      ANIMAL_STORE_ADMIN_TOKEN: token
    })
    try {
      const listening = logLines(serving).filter((line) => line.message.startsWith("Operations listening on"))
      expect(listening).toHaveLength(1)
      expect(listening[0]!.annotations.worker).toBeUndefined()
      const ops = /Operations listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(listening[0]!.message)![1]!

      const issued = await fetch(`${ops}/admin/v1/keys`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: JSON.stringify({ plan: "enterprise", limits: { perMinute: 1000, perDay: 1000 } })
      })
      expect(issued.status).toBe(201)
      const key = ((await issued.json()) as { secret: string }).secret

      const before = await scrape(ops)
      expect(before.process).toBe(true)
      const pids = [await workerPid(serving, 1), await workerPid(serving, 2)]
      const written = pids.map(bytesWritten)
      // each on a connection of its own: the primary hands them to the workers in turn
      const replies = await Promise.all(
        Array.from({ length: 20 }, () => request(serving.origin, "/v1/pets?limit=1", { key, agent: false }))
      )
      expect(replies.map((reply) => reply.status)).toEqual(Array(20).fill(200))
      // each worker answered some of them (a response is over 200 bytes)
      pids.forEach((pid, i) => expect(bytesWritten(pid) - written[i]!).toBeGreaterThan(4 * 200))
      expect((await scrape(ops)).requests - before.requests).toBe(20)
      expect(logLines(serving).filter((line) => line.message.startsWith("Operations listening"))).toHaveLength(1)
    } finally {
      serving.child.kill("SIGTERM")
    }
    expect((await serving.exited).code).toBe(0)
    Fs.rmSync(folder, { recursive: true, force: true })
  })

  it("serves one /metrics for the service: no counter lower after a worker is killed, process metrics by worker; the service's probes", async () => {
    const folder = temporaryFolder()
    const database = Path.join(folder, "animal-store.db")
    const key = "ask_live_workersmetrics000000"
    const serving = await startWorkers(["--store", `sqlite:${database}`, "--ops-port", "0", "--access-log", "off"], {
      ANIMAL_STORE_API_KEYS: `${key}:enterprise:1000000:1000000`
    })
    const created = Metrics.sampleKey("http_server_request_duration_seconds_count", {
      animal_store_operation: "createPet",
      http_request_method: "POST",
      http_response_status_code: "201",
      http_route: "/v1/pets"
    })
    // Each on a connection of its own: the supervisor hands them to the workers in turn.
    const create = async (count: number) => {
      const replies = await Promise.all(Array.from({ length: count }, (_, i) =>
        request(serving.origin, "/v1/pets", { key, agent: false, body: { name: `pet ${i}`, categoryId: 1 } })))
      expect(replies.map((reply) => reply.status)).toEqual(Array(count).fill(201))
    }
    try {
      const ops = await waitFor("the operations port", () =>
        /Operations listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(serving.stdout())?.[1])
      await create(20)
      const [first, second] = [await workerPid(serving, 1), await workerPid(serving, 2)]
      const before = await Metrics.scrape(ops)
      Metrics.expectServiceProcessMetrics(before, [first, second])
      expect(before.samples.get(created)).toBe(20)

      process.kill(second, "SIGKILL")
      const replacement = await workerPid(serving, 2, second)
      // Once the new process of worker 2 has sent its metrics.
      const after = await Metrics.scrapeWhen(ops, (scraped) => scraped.samples.has(`process_max_fds{worker="2"}`))
      Metrics.expectServiceProcessMetrics(after, [first, replacement])
      Metrics.expectNoCountLower(before, after)
      expect(after.samples.get(created)).toBe(20)
      expect(after.samples.get(`process_start_time_seconds{worker="2"}`))
        .toBeGreaterThanOrEqual(before.samples.get(`process_start_time_seconds{worker="2"}`)!)

      await create(10)
      const later = await Metrics.scrape(ops)
      Metrics.expectNoCountLower(after, later)
      expect(later.samples.get(created)).toBe(30)

      // The probes of the service, on the operations port: ready while the store answers.
      expect(await Metrics.probe(ops, "/healthz")).toEqual({ status: 200, body: { status: "ok" } })
      expect(await Metrics.probe(ops, "/readyz")).toEqual({ status: 200, body: { status: "ok" } })
      Fs.renameSync(database, `${database}.moved`)
      const notReady = await Metrics.probeUntil(ops, "/readyz", 503)
      expect(notReady.body).toEqual(expect.objectContaining({ code: "service_unavailable", status: 503 }))
      expect(await Metrics.probe(ops, "/healthz")).toEqual({ status: 200, body: { status: "ok" } })
      Fs.renameSync(`${database}.moved`, database)
      expect(await Metrics.probeUntil(ops, "/readyz", 200)).toEqual({ status: 200, body: { status: "ok" } })
    } finally {
      serving.child.kill("SIGTERM")
    }
    expect((await serving.exited).code).toBe(0)
    Fs.rmSync(folder, { recursive: true, force: true })
  })

  it("is refused on the memory store, with a bad count, and on a port in use, with one line", async () => {
    const folder = temporaryFolder()
    const taken = Net.createServer()
    await new Promise<void>((resolve) => taken.listen(0, "127.0.0.1", resolve))
    const port = (taken.address() as Net.AddressInfo).port
    const [memory, zero, inUse] = await Promise.all([
      runCli(["serve", "--port", "0", "--store", "memory", "--workers", "2"]),
      runCli(["serve", "--port", "0", "--store", "memory"], { ANIMAL_STORE_WORKERS: "0" }),
      runCli(["serve", "--port", String(port), "--store", `sqlite:${Path.join(folder, "a.db")}`, "--workers", "2"])
    ])
    taken.close()
    Fs.rmSync(folder, { recursive: true, force: true })
    expect([inUse.code, inUse.stderr]).toEqual([
      1,
      `animal-store: cannot listen on 127.0.0.1:${port}: listen EADDRINUSE: address already in use 127.0.0.1:${port}\n`
    ])
    expect([memory.code, memory.stderr]).toEqual([
      1,
      "animal-store: --workers 2 needs a SQLite or PostgreSQL store: on memory each process would keep its own animals, keys and limits\n"
    ])
    expect([zero.code, zero.stderr]).toEqual([
      1,
      "animal-store: --workers: expected a number of processes from 1 to 1024 or auto, got \"0\"\n"
    ])
  })

  it("keeps a key's limit exact across the workers on SQLite", async () => {
    const folder = temporaryFolder()
    try {
      await checkExactLimit(`sqlite:${Path.join(folder, "animal-store.db")}`, 40)
    } finally {
      Fs.rmSync(folder, { recursive: true, force: true })
    }
  })

  describe("on PostgreSQL", () => {
    let cluster: PgCluster.PgCluster | undefined
    beforeAll(async () => {
      cluster = await PgCluster.start()
    }, 60_000)
    afterAll(() => cluster?.destroy())

    it("keeps a key's limit exact across the workers", async () => {
      await checkExactLimit(await cluster!.createDatabase(), 40)
    })
  })

  it("restarts a worker killed with SIGKILL or SIGBUS under load, logs it, loses nothing acknowledged, and drains on SIGTERM", async () => {
    const folder = temporaryFolder()
    const store = ["--store", `sqlite:${Path.join(folder, "animal-store.db")}`]
    const key = "ask_live_workersfaults00000000"
    const env = { ANIMAL_STORE_API_KEYS: `${key}:enterprise:1000000:1000000` }
    const serving = await startWorkers(store, env)
    const agent = new Http.Agent({ keepAlive: true, maxSockets: 8 })
    const acknowledged = new Map<number, string>()
    let failed = 0
    let running = true
    // 8 clients POST in a loop; a request cut by a worker's death fails and the client goes on.
    const load = Promise.all(Array.from({ length: 8 }, async (_, client) => {
      for (let n = 0; running; n++) {
        const name = `pet ${client}-${n}`
        try {
          const reply = await request(serving.origin, "/v1/pets", { key, agent, body: { name, categoryId: 1 } })
          if (reply.status === 201) acknowledged.set((JSON.parse(reply.body) as { id: number }).id, name)
          else failed++
        } catch {
          failed++
          await sleep(10)
        }
      }
    }))
    const acknowledgedAtLeast = (count: number) => waitFor(`${count} acknowledged POSTs`, () => acknowledged.size >= count || undefined)
    const exitLogged = (signal: string, pid: number) =>
      waitFor(`the exit of ${pid} logged`, () =>
        logLines(serving).find((line) =>
          line.message === "worker exited" && line.annotations.pid === pid && line.annotations.signal === signal
        ))
    try {
      await acknowledgedAtLeast(30)
      const first = await workerPid(serving, 1)
      process.kill(first, "SIGKILL")
      const killed = await exitLogged("SIGKILL", first)
      expect(killed).toMatchObject({ logLevel: "ERROR", annotations: { worker: 1, code: null } })
      await workerPid(serving, 1, first)
      await workerListening(serving, 1, 2)
      await acknowledgedAtLeast(acknowledged.size + 30)

      const second = await workerPid(serving, 2)
      process.kill(second, "SIGBUS")
      expect(await exitLogged("SIGBUS", second)).toMatchObject({ logLevel: "ERROR", annotations: { worker: 2, code: null } })
      await workerPid(serving, 2, second)
      await workerListening(serving, 2, 2)
      await acknowledgedAtLeast(acknowledged.size + 30)
    } finally {
      running = false
      await load
      agent.destroy()
    }
    expect(serving.child.exitCode).toBeNull()
    // about the requests in flight on the two killed workers were cut (8 clients)
    expect(failed).toBeLessThanOrEqual(40)

    const readAll = async (origin: string) => {
      const missing: Array<number> = []
      const reader = new Http.Agent({ keepAlive: true, maxSockets: 8 })
      for (const [id, name] of acknowledged) {
        const reply = await request(origin, `/v1/pets/${id}`, { key, agent: reader })
        if (reply.status !== 200 || (JSON.parse(reply.body) as { name: string }).name !== name) missing.push(id)
      }
      reader.destroy()
      return missing
    }
    expect(await readAll(serving.origin)).toEqual([])

    const inFlight = await halfSentPost(serving.origin, key, JSON.stringify({ name: "Late", categoryId: 2 }))
    await sleep(200)
    serving.child.kill("SIGTERM")
    await sleep(300)
    expect(serving.child.exitCode).toBeNull()
    expect(await inFlight.finish()).toBe(201)
    expect((await serving.exited).code).toBe(0)

    const again = await startWorkers(store, env)
    try {
      expect(await readAll(again.origin)).toEqual([])
    } finally {
      again.child.kill("SIGTERM")
    }
    expect((await again.exited).code).toBe(0)
    Fs.rmSync(folder, { recursive: true, force: true })
  })
})
