/**
 * Store faults as an operator meets them (decisions.md "Faults"): each request
 * refused by a store failure is counted by reason; a fault is logged and
 * counted when it starts, and logged when the store's readiness passes again.
 *
 * @internal
 */
import type { StoreError } from "@animal-store/core"
import { Duration, Effect, Metric, Schedule } from "effect"
import type { StoreFailureReport } from "../ErrorResponse.js"
import { faultsMetric, storeErrorsMetric } from "../ErrorResponse.js"

const faults = Metric.counter(faultsMetric, { description: "Store faults, counted when each starts", incremental: true })

const errors = Metric.counter(storeErrorsMetric, {
  description: "Requests answered with a store failure, by reason",
  incremental: true
})

/** One counter per reason, tagged once. */
const errorsByReason = new Map<string, Metric.Metric.Counter<number>>()

const countError = (error: StoreError.StoreError) =>
  Effect.suspend(() => {
    let counter = errorsByReason.get(error.reason)
    if (counter === undefined) {
      counter = Metric.tagged(errors, "reason", error.reason)
      errorsByReason.set(error.reason, counter)
    }
    return Metric.increment(counter)
  })

/** @internal */
export interface StoreFaults {
  /** A request was refused by `error`: counted; logged and counted as a fault when it starts one, else logged at debug level. */
  readonly report: StoreFailureReport
}

/** The faults of a store whose readiness is `check`. @internal */
export const make = (check: Effect.Effect<void, StoreError.StoreError>): StoreFaults => {
  let open = false
  const watch = check.pipe(
    Effect.retry(Schedule.spaced(Duration.seconds(1))),
    Effect.zipRight(Effect.logInfo("Store fault ended: the store answers again")),
    Effect.ensuring(Effect.sync(() => (open = false))),
    Effect.forkDaemon
  )
  return {
    report: (error) =>
      Effect.suspend(() => {
        const line = `Store failure (${error.reason}): ${error.message}`
        if (open) return Effect.zipRight(countError(error), Effect.logDebug(line))
        open = true
        return Effect.logError(line).pipe(
          Effect.zipRight(countError(error)),
          Effect.zipRight(Metric.increment(faults)),
          Effect.zipRight(watch),
          Effect.asVoid
        )
      })
  }
}
