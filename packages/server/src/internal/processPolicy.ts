/**
 * What `serve` sets on the process while it serves: V8's heap policy
 * (`internal/heapPolicy.ts`) and its signal listeners.
 */
import { Effect, Layer, Runtime } from "effect"
import * as HeapPolicy from "./heapPolicy.js"

/**
 * The heap policy, and SIGINT/SIGTERM listeners that keep a second signal (a
 * terminal's Ctrl-C reaches the parent too, which may forward it) from cutting
 * the graceful shutdown short, logging it alone. A worker logs no signal (its
 * supervisor does) and ignores SIGHUP (its supervisor acts on it).
 */
export const layer = (worker: boolean): Layer.Layer<never> =>
  Layer.scopedDiscard(Effect.flatMap(Effect.runtime<never>(), (runtime) =>
    Effect.acquireRelease(
      Effect.sync(() => {
        const restoreHeap = HeapPolicy.apply()
        const received = (signal: NodeJS.Signals) => {
          if (!worker) {
            Runtime.runFork(runtime)(Effect.annotateLogs(Effect.logInfo(`${signal} received: shutting down`), { signal }))
          }
        }
        process.on("SIGINT", received).on("SIGTERM", received)
        if (worker) process.on("SIGHUP", received)
        return () => {
          process.off("SIGINT", received).off("SIGTERM", received).off("SIGHUP", received)
          restoreHeap()
        }
      }),
      (release) => Effect.sync(release)
    )))
