/**
 * `animal_store_sqlite_lock_wait_seconds`: the SQLite store's Effect histogram of lock waits
 * (`SqliteStore.lockWaitsMetric`), read at each scrape as a prom-client histogram.
 */
import { SqliteStore } from "@animal-store/sqlite-store"
import { Metric, MetricState } from "effect"
import * as Prometheus from "prom-client"

const name = "animal_store_sqlite_lock_wait_seconds"
const help = "How long port calls refused by another process's lock on the SQLite file waited for it (calls never refused are not counted)"

/** The histogram's values now, as prom-client gives a histogram's (`_bucket` by `le`, `_sum`, `_count`). */
const values = (): Array<{ labels: Record<string, string | number>; value: number; metricName: string }> => {
  for (const { metricKey, metricState } of Metric.unsafeSnapshot()) {
    if (metricKey.name !== SqliteStore.lockWaitsMetric || !MetricState.isHistogramState(metricState)) continue
    const buckets = metricState.buckets.map(([le, count]) => ({
      labels: { le: le === Number.POSITIVE_INFINITY ? "+Inf" : le },
      value: count,
      metricName: `${name}_bucket`
    }))
    if (!buckets.some((bucket) => bucket.labels.le === "+Inf")) {
      buckets.push({ labels: { le: "+Inf" }, value: metricState.count, metricName: `${name}_bucket` })
    }
    return [
      ...buckets,
      { labels: {}, value: metricState.sum, metricName: `${name}_sum` },
      { labels: {}, value: metricState.count, metricName: `${name}_count` }
    ]
  }
  return []
}

/** The histogram, registered in `registry`: prom-client's, its values read from Effect's at each scrape. */
class LockWaits extends Prometheus.Histogram {
  override async get() {
    return { ...(await super.get()), values: values() }
  }
}

/** Registers the histogram in `registry` (summed over workers as prom-client sums a histogram). */
export const register = (registry: Prometheus.Registry): void => {
  registry.registerMetric(new LockWaits({ name, help, aggregator: "sum", registers: [] }))
}
