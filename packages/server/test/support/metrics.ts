/**
 * Scrapes of `GET /metrics` on a served bin's operations listener, read as
 * Prometheus text: every sample by `name{label="value",...}` (labels
 * sorted), and which of them are counts (of a counter or a histogram).
 */
import { expect } from "@effect/vitest"
import * as Fs from "node:fs"
import parsePrometheus from "parse-prometheus-text-format"
import type { Serving } from "./CliProcess.js"

export interface Scrape {
  readonly text: string
  /** Every sample, by `name{label="value",...}`. */
  readonly samples: ReadonlyMap<string, number>
  /** The samples of counters and histograms (`_bucket`, `_sum`, `_count`): they never go down. */
  readonly counts: ReadonlySet<string>
}

/** The key of a sample: `name{label="value",...}`, labels sorted. */
export const sampleKey = (name: string, labels: Readonly<Record<string, string>> = {}): string =>
  `${name}{${
    Object.entries(labels).sort(([a], [b]) => a.localeCompare(b)).map(([label, value]) => `${label}="${value}"`).join(",")
  }}`

/** A scrape's text read (`read`). */
const read = (text: string): Scrape => {
  const types = new Map([...text.matchAll(/^# TYPE (\S+) (\S+)$/gm)].map(([, name, type]) => [name!, type!]))
  const samples = new Map<string, number>()
  const counts = new Set<string>()
  // Read without the histograms' TYPE lines, each series of a histogram is a family of its own.
  for (const family of parsePrometheus(text.replace(/^# TYPE \S+ histogram\n/gm, ""))) {
    const type = types.get(family.name) ?? types.get(family.name.replace(/_(bucket|sum|count)$/, ""))
    for (const sample of family.metrics) {
      const key = sampleKey(family.name, sample.labels)
      samples.set(key, Number(sample.value))
      if (type === "counter" || type === "histogram") counts.add(key)
    }
  }
  return { text, samples, counts }
}

/** Scrapes `ops`: 200 expected. */
export const scrape = async (ops: string): Promise<Scrape> => {
  const response = await fetch(`${ops}/metrics`)
  expect(response.status).toBe(200)
  return read(await response.text())
}

/** Scrapes `ops` every 50 ms until a scrape answers 200 and `holds`, at most 20 s: that scrape. */
export const scrapeWhen = async (ops: string, holds: (scrape: Scrape) => boolean): Promise<Scrape> => {
  for (const deadline = Date.now() + 20_000; Date.now() < deadline;) {
    const response = await fetch(`${ops}/metrics`)
    if (response.status === 200) {
      const scraped = read(await response.text())
      if (holds(scraped)) return scraped
    } else {
      await response.arrayBuffer()
    }
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  throw new Error("timed out waiting for a scrape")
}

/** Process `pid`'s limit of open files, as the kernel says (`/proc/<pid>/limits`). */
const maxFds = (pid: number): number =>
  Number(/^Max open files\s+(\d+)/m.exec(Fs.readFileSync(`/proc/${pid}/limits`, "utf8"))![1])

/**
 * Checks the process metrics of a service whose worker `n` is process
 * `workers[n - 1]`: each series labelled with its worker (none summed: each
 * `process_max_fds` is its process's limit), and `process_start_time_seconds`
 * without a label, the supervisor's, at most each worker's.
 */
export const expectServiceProcessMetrics = (scraped: Scrape, workers: ReadonlyArray<number>) => {
  const unlabelled = [...scraped.samples.keys()].filter((key) =>
    /^(process|nodejs)_/.test(key) && !/[{,]worker="\d+"[,}]/.test(key)
  )
  expect(unlabelled).toEqual(["process_start_time_seconds{}"])
  const serviceStart = scraped.samples.get("process_start_time_seconds{}")!
  expect(serviceStart).toBeGreaterThan(Date.now() / 1000 - 600)
  workers.forEach((pid, i) => {
    const worker = { worker: String(i + 1) }
    expect(scraped.samples.get(sampleKey("process_max_fds", worker)), `worker ${i + 1}`).toBe(maxFds(pid))
    expect(scraped.samples.get(sampleKey("process_start_time_seconds", worker))).toBeGreaterThanOrEqual(serviceStart)
    expect(scraped.samples.has(sampleKey("process_resident_memory_bytes", worker))).toBe(true)
    expect(scraped.samples.has(sampleKey("process_cpu_seconds_total", worker))).toBe(true)
  })
  const workersLabelled = new Set([...scraped.samples.keys()].flatMap((key) => /[{,]worker="(\d+)"/.exec(key)?.[1] ?? []))
  expect([...workersLabelled].sort()).toEqual(workers.map((_, i) => String(i + 1)))
}

/** Checks that no count of `before` is lower (or gone) in `after`. */
export const expectNoCountLower = (before: Scrape, after: Scrape) => {
  const lower = [...before.counts].filter((key) => !((after.samples.get(key) ?? -1) >= before.samples.get(key)!))
  expect(lower.map((key) => `${key}: ${before.samples.get(key)} then ${after.samples.get(key)}`)).toEqual([])
  expect(before.counts.size).toBeGreaterThan(0)
}

/** The answer of a probe on `origin`: its status and JSON body. */
export const probe = async (origin: string, path: "/healthz" | "/readyz") => {
  const response = await fetch(`${origin}${path}`)
  return { status: response.status, body: (await response.json()) as unknown }
}

/** Probes `origin` every 50 ms until the probe answers `status`, at most 20 s: that answer. */
export const probeUntil = async (origin: string, path: "/healthz" | "/readyz", status: number) => {
  for (const deadline = Date.now() + 20_000; Date.now() < deadline;) {
    const answer = await probe(origin, path)
    if (answer.status === status) return answer
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  throw new Error(`timed out waiting for ${path} to answer ${status}`)
}

/** The operations listener's address, once the served bin has logged it. */
export const opsOrigin = async (serving: Serving): Promise<string> => {
  const deadline = Date.now() + 10_000
  while (Date.now() < deadline) {
    const match = /Operations listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(serving.stdout())
    if (match) return match[1]!
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  throw new Error(`no operations listener in:\n${serving.stdout()}`)
}
