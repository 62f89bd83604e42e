/**
 * The load generator of the HTTP benchmark, run as its own process (pinned
 * to its own core by `http.ts`): autocannon against each target of the plan
 * in turn, a warm-up when the plan asks for one, then the measured run. On stdout, one JSON object a
 * line: `{"event":"start",...}` as a measured run starts, then its result.
 *
 *   BENCH_LOAD_PLAN='{"runs":[...],...}' node --import tsx bench/load.ts
 */
import autocannon from "autocannon"
import type { HttpScenario, LoadLine, LoadPlan } from "./httpScenarios.js"
import { expectedStatus, requestOf } from "./httpScenarios.js"

interface Histogram {
  readonly average: number
  readonly p50: number
  readonly p99: number
}
interface AutocannonResult {
  readonly requests: Histogram & { readonly total: number }
  readonly latency: Histogram
  readonly duration: number
  readonly errors: number
  readonly timeouts: number
  readonly non2xx: number
  readonly statusCodeStats: Record<string, { readonly count: number }>
}
type Autocannon = (options: Record<string, unknown>) => Promise<AutocannonResult>

const plan = JSON.parse(process.env.BENCH_LOAD_PLAN ?? "") as LoadPlan

const fire = (url: string, scenario: HttpScenario, seconds: number) =>
  (autocannon as unknown as Autocannon)({
    url,
    connections: plan.connections,
    pipelining: 1,
    duration: seconds,
    requests: [requestOf(scenario, plan)]
  })

for (const run of plan.runs) {
  if (run.warmUp) await fire(run.url, run.scenario, plan.warmupSeconds)
  process.stdout.write(JSON.stringify({ event: "start", server: run.server, scenario: run.scenario }) + "\n")
  const result = await fire(run.url, run.scenario, plan.seconds)
  const statusCounts = Object.fromEntries(
    Object.entries(result.statusCodeStats).map(([status, { count }]) => [status, Number(count)])
  )
  const expected = expectedStatus[run.scenario]
  const unexpected = Object.entries(statusCounts).reduce(
    (sum, [status, count]) => Number(status) === expected ? sum : sum + count,
    result.errors
  )
  const line: LoadLine = {
    event: "result",
    server: run.server,
    scenario: run.scenario,
    requestsPerSecond: result.requests.total / result.duration,
    latencyP50Ms: result.latency.p50,
    latencyP99Ms: result.latency.p99,
    requests: result.requests.total,
    statusCounts,
    errors: result.errors,
    unexpected
  }
  process.stdout.write(JSON.stringify(line) + "\n")
}
