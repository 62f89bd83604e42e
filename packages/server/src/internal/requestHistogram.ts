/**
 * For speed only: prom-client's `Histogram.observe` checks and hashes the labels of every call, a
 * cost paid by each request (`pnpm bench --only telemetry`); here a request is a map lookup and three additions.
 *
 * The request duration histogram, kept per label set by the server and read
 * by prom-client's registry at each scrape in the form of its own histograms
 * (`_bucket` with `le`, `_sum`, `_count`), summed like them across workers.
 */
import type * as Prometheus from "prom-client"

interface Series {
  readonly labels: Readonly<Record<string, string | number>>
  readonly buckets: Array<number>
  sum: number
  count: number
}

/** A histogram of `name` with `bounds`, registered on `registry`: `observe(key, labels, value)`. */
export const make = (registry: Prometheus.Registry, options: {
  readonly name: string
  readonly help: string
  readonly bounds: ReadonlyArray<number>
}) => {
  const { bounds, help, name } = options
  const series = new Map<string, Series>()
  const metric = {
    name,
    help,
    type: "histogram",
    aggregator: "sum",
    get: async () => ({
      name,
      help,
      type: "histogram",
      aggregator: "sum",
      values: Array.from(series.values()).flatMap(({ buckets, count, labels, sum }) => {
        let cumulative = 0
        return [
          ...bounds.map((le, i) => ({
            labels: { ...labels, le },
            value: (cumulative += buckets[i]!),
            metricName: `${name}_bucket`
          })),
          { labels: { ...labels, le: "+Inf" }, value: count, metricName: `${name}_bucket` },
          { labels, value: sum, metricName: `${name}_sum` },
          { labels, value: count, metricName: `${name}_count` }
        ]
      })
    }),
    reset: () => series.clear()
  }
  registry.registerMetric(metric as unknown as Prometheus.Metric)
  return {
    /** Counts `value` in the series `key` (made with `labels` the first time). */
    observe: (key: string, labels: () => Readonly<Record<string, string | number>>, value: number): void => {
      let found = series.get(key)
      if (found === undefined) {
        found = { labels: labels(), buckets: bounds.map(() => 0), sum: 0, count: 0 }
        series.set(key, found)
      }
      const i = bounds.findIndex((bound) => value <= bound)
      if (i !== -1) found.buckets[i]!++
      found.sum += value
      found.count++
    }
  }
}
