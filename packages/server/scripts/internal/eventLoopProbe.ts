/**
 * Preloaded into the server by the soak script (`node --import tsx --import
 * <this file> bin/animal-store.js serve ...`): once a second, writes the
 * process's event-loop delay and heap as one JSON line on file descriptor 3,
 * which the soak script reads. It touches nothing else of the server.
 */
import { writeSync } from "node:fs"
import { monitorEventLoopDelay } from "node:perf_hooks"
import type { ProbeSample } from "./eventLoopDelay.js"
import { loopResolutionMs } from "./eventLoopDelay.js"

const histogram = monitorEventLoopDelay({ resolution: loopResolutionMs })
histogram.enable()

const ms = (nanoseconds: number) => Math.round(nanoseconds / 1e4) / 100

const timer = setInterval(() => {
  const sample: ProbeSample = {
    p99: ms(histogram.percentile(99)),
    max: ms(histogram.max),
    heapUsed: process.memoryUsage().heapUsed
  }
  histogram.reset()
  try {
    writeSync(3, JSON.stringify(sample) + "\n")
  } catch {
    clearInterval(timer)
  }
}, 1_000)
timer.unref()
