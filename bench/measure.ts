/**
 * Timing of operations: several ways of doing the same thing run
 * in turn, round after round (the machine may be shared: alternating keeps
 * the comparison fair), and each keeps its median round. Time is the CPU time
 * of the process (user + system, garbage collection threads included), which
 * other processes on a busy machine disturb far less than wall time.
 */

/**
 * A way of doing the operation: `run(i)` does it once, with the `i`-th input.
 * An operation that ends later (a create that ends once it is durable)
 * answers a promise: the operations of a batch then run together, as
 * concurrent requests do, and the batch ends when all have.
 */
export interface Way {
  readonly name: string
  readonly run: (i: number) => void | Promise<unknown>
}

export interface Measure {
  readonly opsPerSecond: number
  readonly microsPerOp: number
}

export interface Timing {
  readonly warmupMs: number
  readonly rounds: number
  readonly roundMs: number
}

/** Operations a batch; a way's `i` of the first of a batch is a multiple of it. */
export const batch = 32

const median = (values: ReadonlyArray<number>): number => [...values].sort((a, b) => a - b)[values.length >> 1]!

const cpuMs = (): number => {
  const { system, user } = process.cpuUsage()
  return (user + system) / 1000
}

/** Runs `way` for at least `ms` of CPU time starting at input `from`; the operations done and the CPU time taken. */
const runFor = async (way: Way, ms: number, from: number): Promise<{ readonly ops: number; readonly ms: number }> => {
  let ops = 0
  const start = cpuMs()
  let elapsed = 0
  const pending: Array<Promise<unknown>> = []
  while (elapsed < ms) {
    for (let k = 0; k < batch; k++) {
      const done = way.run(from + ops + k)
      if (done !== undefined) pending.push(done)
    }
    if (pending.length > 0) {
      await Promise.all(pending)
      pending.length = 0
    }
    ops += batch
    elapsed = cpuMs() - start
  }
  return { ops, ms: elapsed }
}

/** Measures every way, in turn, `rounds` times; the median round of each, by name. */
export const measure = async (ways: ReadonlyArray<Way>, timing: Timing): Promise<Record<string, Measure>> => {
  const next = new Map(ways.map((way) => [way.name, 0]))
  const rates = new Map<string, Array<number>>(ways.map((way) => [way.name, []]))
  for (const way of ways) next.set(way.name, (await runFor(way, timing.warmupMs, 0)).ops)
  for (let round = 0; round < timing.rounds; round++) {
    for (const way of ways) {
      const { ms, ops } = await runFor(way, timing.roundMs, next.get(way.name)!)
      next.set(way.name, next.get(way.name)! + ops)
      rates.get(way.name)!.push((ops * 1000) / ms)
    }
  }
  return Object.fromEntries(ways.map((way) => {
    const opsPerSecond = median(rates.get(way.name)!)
    return [way.name, { opsPerSecond, microsPerOp: 1e6 / opsPerSecond }]
  }))
}
