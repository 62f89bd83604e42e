import { describe, expect, it } from "@effect/vitest"
import * as Prometheus from "prom-client"
import * as RequestHistogram from "../src/internal/requestHistogram.js"

describe("RequestHistogram", () => {
  it("reads as prom-client's histograms: cumulative buckets, +Inf, sum and count per label set", async () => {
    const registry = new Prometheus.Registry()
    const histogram = RequestHistogram.make(registry, { name: "d_seconds", help: "d", bounds: [0.1, 1] })
    for (const value of [0.05, 0.1, 0.5, 2]) histogram.observe("a", () => ({ route: "/a" }), value)
    histogram.observe("b", () => ({ route: "/b" }), 0.7)
    const text = await registry.metrics()
    expect(text).toContain("# TYPE d_seconds histogram")
    expect(text).toContain(`d_seconds_bucket{route="/a",le="0.1"} 2`)
    expect(text).toContain(`d_seconds_bucket{route="/a",le="1"} 3`)
    expect(text).toContain(`d_seconds_bucket{route="/a",le="+Inf"} 4`)
    expect(text).toContain(`d_seconds_sum{route="/a"} 2.65`)
    expect(text).toContain(`d_seconds_count{route="/a"} 4`)
    expect(text).toContain(`d_seconds_bucket{route="/b",le="0.1"} 0`)
    expect(text).toContain(`d_seconds_count{route="/b"} 1`)
    // Summed across registries as prom-client sums its own histograms (workers).
    const summed = Prometheus.AggregatorRegistry.aggregate([await registry.getMetricsAsJSON(), await registry.getMetricsAsJSON()])
    expect(await summed.metrics()).toContain(`d_seconds_count{route="/a"} 8`)
  })
})
