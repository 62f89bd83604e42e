/**
 * The arithmetic of the service's metrics across workers (`workerMetrics.ts`)
 * on prom-client's JSON: the counts kept of processes that ended are added
 * series by series (gauges left out), and once each worker's process
 * metrics are labelled with it, prom-client's aggregation sums the
 * service's counts and keeps each worker's gauges apart.
 */
import { describe, expect, it } from "@effect/vitest"
import * as fc from "fast-check"
import * as Prometheus from "prom-client"
import * as WorkerMetrics from "../src/internal/workerMetrics.js"

/** A process's registry: a service counter by `outcome`, a histogram, a gauge and a process counter. */
const processRegistry = (counts: ReadonlyArray<readonly [string, number]>, observations: ReadonlyArray<number>) => {
  const registry = new Prometheus.Registry()
  const decisions = new Prometheus.Counter({ name: "decisions_total", help: "h", labelNames: ["outcome"], registers: [registry] })
  for (const [outcome, n] of counts) decisions.inc({ outcome }, n)
  const duration = new Prometheus.Histogram({ name: "duration_seconds", help: "h", buckets: [0.1, 1], registers: [registry] })
  for (const seconds of observations) duration.observe(seconds)
  new Prometheus.Gauge({ name: "process_max_fds", help: "h", registers: [registry] }).set(1024)
  new Prometheus.Counter({ name: "process_cpu_seconds_total", help: "h", registers: [registry] }).inc(counts.length)
  return registry
}

const json = async (registry: Prometheus.Registry) =>
  (await registry.getMetricsAsJSON()) as unknown as ReadonlyArray<WorkerMetrics.MetricJson>

/** Every sample of `metrics`, by metric name, series name and labels. */
const samples = (metrics: ReadonlyArray<WorkerMetrics.MetricJson>) =>
  new Map(metrics.flatMap((metric) =>
    metric.values.map((value) => [
      `${metric.name} ${value.metricName ?? ""} ${JSON.stringify(Object.entries(value.labels).sort())}`,
      value.value
    ] as const)
  ))

const countsArbitrary = fc.array(fc.tuple(fc.constantFrom("accepted", "rate_limited", "banned"), fc.nat(1000)), { maxLength: 6 })
const observationsArbitrary = fc.array(fc.double({ min: 0, max: 5, noNaN: true }), { maxLength: 6 })

describe("the metrics of the service across workers", () => {
  it("adds the counts of two processes series by series, and leaves the gauges out", () =>
    fc.assert(
      fc.asyncProperty(countsArbitrary, observationsArbitrary, countsArbitrary, observationsArbitrary, async (ca, oa, cb, ob) => {
        const a = await json(processRegistry(ca, oa))
        const b = await json(processRegistry(cb, ob))
        const both = await json(processRegistry([...ca, ...cb], [...oa, ...ob]))
        const added = samples(WorkerMetrics.addCounts(a, b))
        const expected = samples(WorkerMetrics.countsOf(both))
        expect([...added.keys()].sort()).toEqual([...expected.keys()].sort())
        for (const [key, value] of expected) expect(added.get(key)).toBeCloseTo(value, 9)
        expect([...added.keys()].some((key) => key.startsWith("process_max_fds"))).toBe(false)
      })
    ), 30_000)

  it("labels each worker's process metrics: summed per worker with its past processes, its gauges apart, the rest summed", async () => {
    const worker1 = await json(processRegistry([["accepted", 3]], [0.5]))
    const worker2 = await json(processRegistry([["accepted", 4], ["banned", 1]], [2]))
    const worker2Before = await json(processRegistry([["accepted", 10]], [0.05]))
    const registry = Prometheus.AggregatorRegistry.aggregate([
      WorkerMetrics.labelled(1, worker1),
      WorkerMetrics.labelled(2, worker2),
      WorkerMetrics.labelled(2, WorkerMetrics.addCounts([], worker2Before)),
      [WorkerMetrics.serviceStart(1_700_000_000)]
    ])
    const text = await registry.metrics()
    expect(text).toContain("decisions_total{outcome=\"accepted\"} 17\n")
    expect(text).toContain("decisions_total{outcome=\"banned\"} 1\n")
    expect(text).toContain("duration_seconds_count 3\n")
    expect(text).toContain("process_max_fds{worker=\"1\"} 1024\n")
    expect(text).toContain("process_max_fds{worker=\"2\"} 1024\n")
    expect(text).not.toMatch(/^process_max_fds \d/m)
    expect(text).toContain("process_cpu_seconds_total{worker=\"1\"} 1\n")
    expect(text).toContain("process_cpu_seconds_total{worker=\"2\"} 3\n")
    expect(text).toContain("process_start_time_seconds 1700000000\n")
  })
})
