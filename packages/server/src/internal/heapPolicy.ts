/**
 * How `animal-store serve` sizes V8's heap: for the resident set of a small
 * service, not the largest throughput of a batch job. V8's defaults let both
 * generations grow far past what a request handler keeps alive:
 *
 * - the old generation may grow to about four times what the last full
 *   collection left (its limit is set at start-up, when the process is idle)
 *   before the next one; here it grows by half;
 * - the young generation grows to 32 MiB (two semi-spaces of 16 MiB; 128 MiB
 *   on Node 24) under steady load; here it stops at `youngGenerationCapBytes`;
 * - on Node 24 (V8 13) the young generation also grows past its capacity, a
 *   page at a time, while a full collection marks (`--separate-gc-phases`);
 *   here it is collected then as on Node 20 and 22 (V8's `--no-separate-gc-phases`).
 *
 * All are V8 flags that V8 reads each time it applies them (the growing
 * factor after each full collection, the semi-space growth factor at each
 * growth, the phases at each allocation past capacity), so the process sets
 * them itself, whatever starts it; the young generation's growth is switched
 * off after each collection that left it at its cap and on again when V8 has
 * shrunk it (a young generation already past the cap when the policy is
 * applied stays there until V8 shrinks it; the bin's is at 8 MiB when it
 * starts listening). Measured by `pnpm bench --only http` (peak RSS); a host
 * that embeds the server keeps its own settings: only the CLI's `serve`
 * applies it, for as long as it serves.
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
