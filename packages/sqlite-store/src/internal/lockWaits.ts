/**
 * The lock waits of the store's port calls: how long a call refused by another connection's
 * lock (`SQLITE_BUSY`) waited until it ran, or gave up at the busy timeout.
 *
 * @internal
 */
import { Metric, MetricBoundaries } from "effect"

/** @internal */
export const name = "animal_store.sqlite.lock_wait"

/** In seconds, 1 ms to 5 s. @internal */
export const histogram = Metric.histogram(
  name,
  MetricBoundaries.fromIterable([0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5]),
  "How long port calls refused by another connection's lock waited for it, in seconds"
)

/** Makes the histogram known (all zeros until a wait), for a store that may wait. @internal */
export const declare = (): void => {
  histogram.unsafeValue([])
}

/** Records a wait of `millis`. @internal */
export const record = (millis: number): void => histogram.unsafeUpdate(millis / 1000, [])
