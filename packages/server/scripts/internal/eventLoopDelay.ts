/**
 * What the soak script and its probe in the server share about event-loop
 * delay, without the probe's side effects.
 */

/**
 * The sampling interval of every `monitorEventLoopDelay` of the soak, in ms.
 * A histogram records the interval plus the delay: the soak subtracts it.
 */
export const loopResolutionMs = 10

/** One sample of the probe: event-loop delay over the last second, in ms, and the heap in bytes. */
export interface ProbeSample {
  readonly p99: number
  readonly max: number
  readonly heapUsed: number
}
