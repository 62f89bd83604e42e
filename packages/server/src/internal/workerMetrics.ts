/**
 * The metrics of `serve`'s workers as the service's (record 0047), on
 * prom-client's JSON: ended processes' counts kept, process metrics labelled by
 * worker, the rest summed. Imports nothing: the supervisor loads it alone.
 *
 * @internal
 */

/** One metric of prom-client's `getMetricsAsJSON()`. @internal */
export interface MetricJson {
  readonly name: string
  readonly help: string
  readonly type: string
  readonly aggregator: string
  readonly values: ReadonlyArray<{
    readonly value: number
    readonly labels: Readonly<Record<string, string | number>>
    readonly metricName?: string | undefined
  }>
}

/** The label of the worker (its number) on its own process metrics. @internal */
export const workerLabel = "worker"

/** Whether a metric only grows while its process lives (a counter, or a histogram's series). */
const isCount = (metric: MetricJson): boolean => metric.type === "counter" || metric.type === "histogram"

/** Whether a metric is one of prom-client's default process and runtime metrics. @internal */
export const isProcessMetric = (metric: MetricJson): boolean =>
  metric.name.startsWith("process_") || metric.name.startsWith("nodejs_")

/** The counts of `metrics`: its counters and histograms. @internal */
export const countsOf = (metrics: ReadonlyArray<MetricJson>): ReadonlyArray<MetricJson> => metrics.filter(isCount)

const seriesKey = (value: MetricJson["values"][number]): string =>
  `${value.metricName ?? ""}\u0000${
    JSON.stringify(Object.entries(value.labels).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
  }`

/** The counts of `a` and of `b` added, series by series (the metrics of `b` not in `a` after `a`'s). @internal */
export const addCounts = (a: ReadonlyArray<MetricJson>, b: ReadonlyArray<MetricJson>): ReadonlyArray<MetricJson> => {
  const sums = new Map<string, { readonly metric: MetricJson; readonly series: Map<string, MetricJson["values"][number]> }>()
  for (const metric of [...countsOf(a), ...countsOf(b)]) {
    let sum = sums.get(metric.name)
    if (sum === undefined) {
      sum = { metric, series: new Map() }
      sums.set(metric.name, sum)
    }
    for (const value of metric.values) {
      const key = seriesKey(value)
      const previous = sum.series.get(key)
      sum.series.set(key, previous === undefined ? value : { ...previous, value: previous.value + value.value })
    }
  }
  return [...sums.values()].map(({ metric, series }) => ({ ...metric, values: [...series.values()] }))
}

/**
 * The metrics of worker `worker` for the service's sum: its process metrics
 * labelled with it, the others unchanged.
 *
 * @internal
 */
export const labelled = (worker: number, metrics: ReadonlyArray<MetricJson>): ReadonlyArray<MetricJson> =>
  metrics.map((metric) =>
    isProcessMetric(metric)
      ? {
        ...metric,
        aggregator: isCount(metric) ? "sum" : "first",
        values: metric.values.map((value) => ({ ...value, labels: { ...value.labels, [workerLabel]: String(worker) } }))
      }
      : metric
  )

/** `process_start_time_seconds` of the service (the supervisor's start), without a worker label. @internal */
export const serviceStart = (startTimeSeconds: number): MetricJson => ({
  name: "process_start_time_seconds",
  help: "Start time of the process since unix epoch in seconds.",
  type: "gauge",
  aggregator: "first",
  values: [{ value: startTimeSeconds, labels: {} }]
})
