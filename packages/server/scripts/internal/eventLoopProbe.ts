/**
 * Preloaded into the server by the soak script (`node --import tsx --import
 * <this file> bin/animal-store.js serve ...`), and so into its supervisor and
 * its worker: in the worker (the process that serves), once a second, appends
 * the process's event-loop delay and heap as one JSON line to the file
 * `SOAK_PROBE_FILE`, which the soak script reads. It touches nothing else of
 * the server.
 */
import Cluster from "node:cluster"
import { appendFileSync } from "node:fs"
import { monitorEventLoopDelay } from "node:perf_hooks"
import type { ProbeSample } from "./eventLoopDelay.js"
import { loopResolutionMs } from "./eventLoopDelay.js"

const file = process.env["SOAK_PROBE_FILE"]
const histogram = monitorEventLoopDelay({ resolution: loopResolutionMs })
if (Cluster.isWorker && file !== undefined) histogram.enable()

const ms = (nanoseconds: number) => Math.round(nanoseconds / 1e4) / 100

const timer = setInterval(() => {
  if (!Cluster.isWorker || file === undefined) return clearInterval(timer)
  const sample: ProbeSample = {
    p99: ms(histogram.percentile(99)),
    max: ms(histogram.max),
    heapUsed: process.memoryUsage().heapUsed
  }
  histogram.reset()
  try {
    appendFileSync(file, JSON.stringify(sample) + "\n")
  } catch {
    clearInterval(timer)
  }
}, 1_000)
timer.unref()
