/**
 * The load generator of the HTTP benchmark, run as its own process (pinned
 * to its own core by `http.ts`, and wrk with it): wrk against each target of
 * the plan in turn, a warm-up when the plan asks for one, then the measured
 * run. On stdout, one JSON object a line: `{"event":"start",...}` as a
 * measured run starts, then its result.
 *
 *   BENCH_LOAD_PLAN='{"runs":[...],...}' node --import tsx bench/load.ts
 */
import type { LoadLine, LoadPlan } from "./httpScenarios.js"
import { expectedStatus, requestOf } from "./httpScenarios.js"
import { requireWrk, runWrk } from "./wrk.js"

const plan = JSON.parse(process.env.BENCH_LOAD_PLAN ?? "") as LoadPlan
requireWrk()

for (const run of plan.runs) {
  const request = requestOf(run.scenario, plan)
  if (run.warmUp) await runWrk(run.url, plan.connections, plan.warmupSeconds, request)
  process.stdout.write(JSON.stringify({ event: "start", server: run.server, scenario: run.scenario }) + "\n")
  const result = await runWrk(run.url, plan.connections, plan.seconds, request)
  const expected = String(expectedStatus[run.scenario])
  const unexpected = Object.entries(result.statusCounts).reduce(
    (sum, [status, count]) => status === expected ? sum : sum + count,
    result.errors
  )
  const line: LoadLine = {
    event: "result",
    server: run.server,
    scenario: run.scenario,
    requestsPerSecond: result.requests / result.seconds,
    latencyP50Ms: result.latencyP50Ms,
    latencyP99Ms: result.latencyP99Ms,
    requests: result.requests,
    statusCounts: result.statusCounts,
    errors: result.errors,
    unexpected
  }
  process.stdout.write(JSON.stringify(line) + "\n")
}
