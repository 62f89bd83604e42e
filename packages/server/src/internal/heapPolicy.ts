/**
 * How `animal-store serve` sizes V8's heap for the resident set of a small
 * service (records 0022, 0054): the old generation grows by half of what a full
 * collection kept, the young generation stops at `youngGenerationCapBytes`, and
 * V8's separate GC phases are off. V8 reads these flags each time it applies
 * them, so the process sets them itself while it serves.
 *
 * @internal
 */
import { PerformanceObserver } from "node:perf_hooks"
import * as V8 from "node:v8"

/** How much the old generation grows after a full collection, in percent of what it kept. @internal */
export const oldGenerationGrowthPercent = 50

/** The young generation's largest size, both semi-spaces: 16 MiB. @internal */
export const youngGenerationCapBytes = 16 * 1024 * 1024

/** V8's own values of the flags, put back on release (separate GC phases: on in Node 24's V8 13, off in Node 20's and 22's). */
const v8Defaults = {
  heapGrowingPercent: 0,
  semiSpaceGrowthFactor: 2,
  separateGcPhases: Number(process.versions.v8.split(".")[0]) >= 13
}

const youngGenerationBytes = (): number =>
  V8.getHeapSpaceStatistics().find((space) => space.space_name === "new_space")?.space_size ?? 0

const setSemiSpaceGrowthFactor = (factor: number): void => V8.setFlagsFromString(`--semi-space-growth-factor=${factor}`)

/**
 * Applies the policy; the function it returns puts V8's own values back. It
 * imports nothing but Node's own modules, so that a process can apply it
 * before it loads anything large.
 *
 * @internal
 */
export const apply = (): () => void => {
  V8.setFlagsFromString(`--heap-growing-percent=${oldGenerationGrowthPercent}`)
  V8.setFlagsFromString("--no-separate-gc-phases")
  let growing = true
  const steer = () => {
    const grow = youngGenerationBytes() < youngGenerationCapBytes
    if (grow !== growing) {
      growing = grow
      setSemiSpaceGrowthFactor(grow ? v8Defaults.semiSpaceGrowthFactor : 1)
    }
  }
  const observer = new PerformanceObserver(steer)
  observer.observe({ entryTypes: ["gc"] })
  steer()
  return () => {
    observer.disconnect()
    V8.setFlagsFromString(`--heap-growing-percent=${v8Defaults.heapGrowingPercent}`)
    V8.setFlagsFromString(v8Defaults.separateGcPhases ? "--separate-gc-phases" : "--no-separate-gc-phases")
    setSemiSpaceGrowthFactor(v8Defaults.semiSpaceGrowthFactor)
  }
}
