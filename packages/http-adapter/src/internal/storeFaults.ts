/**
 * Store faults as an operator meets them (decisions.md "Faults"): logged once when one starts
 * (the first request refused by a store failure while none is open) and once when it ends (the
 * store's readiness check passes again, tried once a second), and counted when each starts.
 *
 * @internal
 */
import type { StoreError } from "@animal-store/core"
import { Duration, Effect, Metric, Schedule } from "effect"
import type { StoreFailureReport } from "../ErrorResponse.js"
import { faultsMetric } from "../ErrorResponse.js"

const faults = Metric.counter(faultsMetric, { description: "Store faults, counted when each starts", incremental: true })

/** @internal */
export interface StoreFaults {
  /** A request was refused by `error`: logged and counted when it starts a fault, else logged at debug level. */
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
        if (open) return Effect.logDebug(line)
        open = true
        return Effect.logError(line).pipe(Effect.zipRight(Metric.increment(faults)), Effect.zipRight(watch), Effect.asVoid)
      })
  }
}
