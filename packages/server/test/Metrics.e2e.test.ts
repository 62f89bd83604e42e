/**
 * `GET /metrics` on the operations listener of the bundled server
 * (`--ops-port`), parsed as Prometheus text: the request histogram, the
 * rate-limit decisions and the idempotent replays move by exactly the
 * requests sent, per label set; the process and event-loop metrics are
 * there; the public port has no `/metrics`.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import parsePrometheus from "parse-prometheus-text-format"
import { startServe } from "./support/CliProcess.js"
import * as Metrics from "./support/metrics.js"
import { workerPid } from "./support/serving.js"
import * as StoreFaults from "./support/storeFaults.js"

const free = "ask_live_metricsfreekey000001"
const tight = "ask_live_metricstightkey00001"

/** Every sample of a scrape, by `name{label="value",...}` (labels sorted); the request histogram by its counts. */
const scrape = async (ops: string): Promise<Map<string, number>> => {
  const response = await fetch(`${ops}/metrics`)
  expect(response.status).toBe(200)
  expect(response.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/)
  const text = await response.text()
  const duration = parsePrometheus(text).find((family) => family.name === "http_server_request_duration_seconds")
  expect(duration?.type).toBe("HISTOGRAM")
  // The parser folds the series of a histogram into one when they have labels: read without the
  // histograms' TYPE lines, each `_count` series is a sample of its own with its labels.
  const samples = new Map<string, number>()
  for (const family of parsePrometheus(text.replace(/^# TYPE \S+ histogram\n/gm, ""))) {
    for (const sample of family.metrics) {
      const labels = Object.entries(sample.labels ?? {}).sort(([a], [b]) => a.localeCompare(b))
      const name = family.name.replace(/^(http_server_request_duration_seconds)_count$/, "$1")
      samples.set(`${name}{${labels.map(([label, value]) => `${label}="${value}"`).join(",")}}`, Number(sample.value))
    }
  }
  return samples
}

const requests = (method: string, status: number, route: string, operation: string) =>
  `http_server_request_duration_seconds{animal_store_operation="${operation}",http_request_method="${method}",` +
  `http_response_status_code="${status}",http_route="${route}"}`

const decisions = (outcome: string, plan: string) =>
  `animal_store_rate_limit_decisions_total{outcome="${outcome}",plan="${plan}"}`

const send = async (origin: string, count: number, path: string, init: RequestInit = {}) => {
  const statuses: Array<number> = []
  for (let i = 0; i < count; i++) {
    const response = await fetch(`${origin}${path}`, init)
    await response.arrayBuffer()
    statuses.push(response.status)
  }
  return statuses
}

describe("metrics on the operations listener", () => {
  it("count the requests sent by operation, method, route and status, the rate-limit decisions and the replays", async () => {
    const serving = await startServe(["--store", "memory", "--ops-port", "0", "--anonymous-per-minute", "3", "--ban-after", "1"], {
      ANIMAL_STORE_API_KEYS: `${free}:free,${tight}:enterprise:2:2`,
      ANIMAL_STORE_ACCESS_LOG: "off"
    })
    try {
      const ops = await Metrics.opsOrigin(serving)
      const before = await scrape(ops)
      const delta = (after: Map<string, number>, key: string) => (after.get(key) ?? 0) - (before.get(key) ?? 0)

      const bearer = (key: string) => ({ authorization: `Bearer ${key}` })
      expect(await send(serving.origin, 5, "/v1/pets", { headers: bearer(free) })).toEqual([200, 200, 200, 200, 200])
      expect(await send(serving.origin, 2, "/v1/pets/999999", { headers: bearer(free) })).toEqual([404, 404])
      const create = {
        method: "POST",
        headers: { ...bearer(free), "content-type": "application/json", "idempotency-key": "metrics-test-1" },
        body: JSON.stringify({ name: "Rex", categoryId: 1 })
      }
      expect(await send(serving.origin, 3, "/v1/pets", create)).toEqual([201, 201, 201])
      // Without a key: 3 a minute for the address, then refused.
      expect(await send(serving.origin, 5, "/v1/pets")).toEqual([401, 401, 401, 429, 429])
      // 2 a minute for this key, one refusal (rate_limited), then a ban (api_key_banned, 429 too).
      expect(await send(serving.origin, 4, "/v1/pets", { headers: bearer(tight) })).toEqual([200, 200, 429, 429])
      // An unknown method is counted as _OTHER: a bounded label set.
      expect(await send(serving.origin, 1, "/v1/pets", { method: "PURGE", headers: bearer(free) })).toEqual([405])

      const after = await scrape(ops)
      expect(delta(after, requests("GET", 200, "/v1/pets", "listPets"))).toBe(7)
      expect(delta(after, requests("GET", 404, "/v1/pets/{petId}", "getPet"))).toBe(2)
      expect(delta(after, requests("POST", 201, "/v1/pets", "createPet"))).toBe(3)
      expect(delta(after, requests("GET", 401, "/v1/pets", "listPets"))).toBe(3)
      expect(delta(after, requests("GET", 429, "/v1/pets", "listPets"))).toBe(4)
      expect(delta(after, requests("_OTHER", 405, "", "method_not_allowed"))).toBe(1)
      const counted = [...after].filter(([key]) => key.startsWith("http_server_request_duration_seconds{"))
      expect(counted.reduce((sum, [key, value]) => sum + value - (before.get(key) ?? 0), 0)).toBe(20)

      expect(delta(after, decisions("accepted", "free"))).toBe(11)
      expect(delta(after, decisions("accepted", "anonymous"))).toBe(3)
      expect(delta(after, decisions("rate_limited", "anonymous"))).toBe(2)
      expect(delta(after, decisions("accepted", "enterprise"))).toBe(2)
      expect(delta(after, decisions("rate_limited", "enterprise"))).toBe(1)
      expect(delta(after, decisions("banned", "enterprise"))).toBe(1)
      expect(delta(after, "animal_store_idempotent_replays_total{}")).toBe(2)

      for (const name of ["process_cpu_seconds_total", "process_resident_memory_bytes", "nodejs_eventloop_lag_seconds"].map((name) =>
        `${name}{worker="1"}`
      )) {
        expect(after.has(name), name).toBe(true)
      }
      // The scrapes are not requests of the API, and the API has no /metrics.
      expect((await fetch(`${serving.origin}/metrics`, { headers: bearer(free) })).status).toBe(404)
      expect((await scrape(ops)).get(requests("GET", 200, "/v1/pets", "listPets"))).toBe(after.get(requests("GET", 200, "/v1/pets", "listPets")))
    } finally {
      serving.child.kill("SIGTERM")
      expect((await serving.exited).code).toBe(0)
    }
  })

  it("count the requests answered with a store error by reason, and the fault once", async () => {
    const folder = Fs.mkdtempSync(Path.join(Os.tmpdir(), "animal-store-metrics-"))
    const filename = Path.join(folder, "animal-store.db")
    const serving = await startServe(["--store", `sqlite:${filename}`, "--ops-port", "0", "--access-log", "off"], StoreFaults.env)
    try {
      const ops = await Metrics.opsOrigin(serving)
      expect((await StoreFaults.createPet(serving, "Rex")).status).toBe(201)
      const before = await scrape(ops)
      const delta = (after: Map<string, number>, key: string) => (after.get(key) ?? 0) - (before.get(key) ?? 0)

      // The database file moved away: every write is refused with 503 until it is back.
      Fs.renameSync(filename, `${filename}.moved`)
      for (const name of ["Tom", "Kit", "Max"]) await StoreFaults.expectUnavailable(await StoreFaults.createPet(serving, name))
      Fs.renameSync(`${filename}.moved`, filename)
      expect((await StoreFaults.createPet(serving, "Bob")).status).toBe(201)

      const after = await scrape(ops)
      expect(delta(after, requests("POST", 503, "/v1/pets", "createPet"))).toBe(3)
      expect(delta(after, `animal_store_store_errors_total{reason="Unavailable"}`)).toBe(3)
      expect(delta(after, "animal_store_store_faults_total{}")).toBe(1)
    } finally {
      expect(await StoreFaults.stop(serving)).toBe(0)
      Fs.rmSync(folder, { recursive: true, force: true })
    }
  })

  it("are the service's with the default serve too: no counter lower after its worker is killed; the probes are there", async () => {
    const folder = Fs.mkdtempSync(Path.join(Os.tmpdir(), "animal-store-metrics-"))
    const serving = await startServe(
      ["--store", `sqlite:${Path.join(folder, "animal-store.db")}`, "--ops-port", "0", "--access-log", "off"],
      StoreFaults.env
    )
    const created = Metrics.sampleKey("http_server_request_duration_seconds_count", {
      animal_store_operation: "createPet",
      http_request_method: "POST",
      http_response_status_code: "201",
      http_route: "/v1/pets"
    })
    try {
      const ops = await Metrics.opsOrigin(serving)
      for (const name of ["Rex", "Tom", "Kit"]) expect((await StoreFaults.createPet(serving, name)).status).toBe(201)
      const first = await workerPid(serving, 1)
      const before = await Metrics.scrape(ops)
      Metrics.expectServiceProcessMetrics(before, [first])
      expect(before.samples.get(created)).toBe(3)
      expect(await Metrics.probe(ops, "/healthz")).toEqual({ status: 200, body: { status: "ok" } })
      expect(await Metrics.probe(ops, "/readyz")).toEqual({ status: 200, body: { status: "ok" } })

      process.kill(first, "SIGKILL")
      const restarted = await workerPid(serving, 1, first)
      const after = await Metrics.scrapeWhen(ops, (scraped) => scraped.samples.has(`process_max_fds{worker="1"}`))
      Metrics.expectServiceProcessMetrics(after, [restarted])
      Metrics.expectNoCountLower(before, after)
      expect(after.samples.get(created)).toBe(3)
      expect((await StoreFaults.createPet(serving, "Max")).status).toBe(201)
      expect((await Metrics.scrape(ops)).samples.get(created)).toBe(4)
      expect(await Metrics.probe(ops, "/readyz")).toEqual({ status: 200, body: { status: "ok" } })
    } finally {
      expect(await StoreFaults.stop(serving)).toBe(0)
      Fs.rmSync(folder, { recursive: true, force: true })
    }
  })

  it("is off unless --ops-port is set", async () => {
    const serving = await startServe(["--store", "memory"], { ANIMAL_STORE_ACCESS_LOG: "off" })
    try {
      await new Promise((resolve) => setTimeout(resolve, 200))
      expect(serving.stdout()).not.toContain("Operations listening")
    } finally {
      serving.child.kill("SIGTERM")
      expect((await serving.exited).code).toBe(0)
    }
  })

  it("serves the admin API beside /metrics only when ANIMAL_STORE_ADMIN_TOKEN is set", async () => {
    const token = "admin-token-for-the-ops-listener"
    const withToken = await startServe(["--store", "memory", "--ops-port", "0"], { ANIMAL_STORE_ADMIN_TOKEN: token })
    const without = await startServe(["--store", "memory", "--ops-port", "0"])
    try {
      const ops = await Metrics.opsOrigin(withToken)
      const issued = await fetch(`${ops}/admin/v1/keys`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: JSON.stringify({ plan: "free" })
      })
      expect(issued.status).toBe(201)
      const { secret } = await issued.json() as { secret: string }
      // The key issued on the operations listener is accepted on the public port.
      const listed = await fetch(`${withToken.origin}/v1/pets`, { headers: { authorization: `Bearer ${secret}` } })
      expect(listed.status).toBe(200)
      expect((await fetch(`${ops}/admin/v1/keys`, { headers: { authorization: "Bearer wrong" } })).status).toBe(401)
      expect((await fetch(`${await Metrics.opsOrigin(without)}/admin/v1/keys`, { headers: { authorization: `Bearer ${token}` } })).status)
        .toBe(404)
      expect(withToken.stdout()).not.toContain(token)
      expect(withToken.stdout()).not.toContain(secret)
    } finally {
      withToken.child.kill("SIGTERM")
      without.child.kill("SIGTERM")
      expect((await withToken.exited).code).toBe(0)
      expect((await without.exited).code).toBe(0)
    }
  })
})
