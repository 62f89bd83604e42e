/**
 * `pnpm bench --baseline`: the rounds interleave the servers, and `--check`
 * misses exactly the targets of issue 36 (at least 0.9x the baseline and 1.0x
 * Fastify on every scenario, p99 at most 1.5x Fastify's, peak RSS at most
 * 1.2x the baseline's). No server is started.
 */
import * as Path from "node:path"
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "vitest"

// The bench is typechecked on its own (bench/tsconfig.json), outside this project's rootDir: its modules are
// loaded by path, with the types of what is used here.
const bench = Path.resolve(Path.dirname(fileURLToPath(import.meta.url)), "../../bench")
type Server = "ours" | "baseline" | "fastify"
interface AbResult {
  readonly scenario: string
  readonly baselineRatio: number
  readonly fastifyRatio: number
  readonly p99Ratio: number
  readonly unexpected: Record<"today" | "baseline" | "fastify", number>
  readonly [field: string]: unknown
}
interface AbReport {
  readonly results: ReadonlyArray<AbResult>
  readonly rssRatio: number
  readonly [field: string]: unknown
}
const { httpScenarios, roundsOf } = (await import(Path.join(bench, "httpScenarios.ts"))) as {
  readonly httpScenarios: ReadonlyArray<string>
  readonly roundsOf: (
    rounds: number,
    serversOf: (scenario: string) => ReadonlyArray<Server>,
    urls: Record<Server, string>
  ) => ReadonlyArray<{ readonly server: Server; readonly url: string; readonly scenario: string; readonly warmUp: boolean }>
}
const { abMissed, abTable } = (await import(Path.join(bench, "report.ts"))) as {
  readonly abMissed: (report: AbReport) => ReadonlyArray<string>
  readonly abTable: (report: AbReport) => string
}

const urls: Record<Server, string> = { ours: "http://a", baseline: "http://b", fastify: "http://f" }

const result = (
  scenario: string,
  ratios: Partial<Pick<AbResult, "baselineRatio" | "fastifyRatio" | "p99Ratio">> = {}
): AbResult => ({
  scenario,
  rounds: { today: [], baseline: [], fastify: [] },
  requestsPerSecond: { today: 1000, baseline: 1000, fastify: 900 },
  p99Ms: { today: 10, baseline: 10, fastify: 10 },
  baselineRatio: 1,
  baselineRoundRatios: [1],
  fastifyRatio: 1.1,
  fastifyRoundRatios: [1.1],
  p99Ratio: 1,
  p99RoundRatios: [1],
  unexpected: { today: 0, baseline: 0, fastify: 0 },
  ...ratios
})

const report = (results: ReadonlyArray<AbResult>, rssRatio = 1): AbReport => ({
  pets: 1000,
  pinned: true,
  baseline: { commitish: "HEAD~1", commit: "0".repeat(40), checkout: "/tmp/x" },
  results,
  peakRssMb: { today: 100 * rssRatio, baseline: 100, fastify: 90 },
  rssRatio
})

describe("pnpm bench --baseline", () => {
  it("runs every scenario on the three servers in every round, each first as often as the others", () => {
    const runs = roundsOf(6, () => ["ours", "baseline", "fastify"], urls)
    expect(runs).toHaveLength(6 * httpScenarios.length * 3)
    for (let round = 0; round < 6; round++) {
      const ofRound = runs.slice(round * httpScenarios.length * 3, (round + 1) * httpScenarios.length * 3)
      for (const scenario of httpScenarios) {
        expect(ofRound.filter((run) => run.scenario === scenario).map((run) => run.server).sort()).toEqual(
          ["baseline", "fastify", "ours"]
        )
      }
      expect(ofRound.every((run) => run.warmUp === (round === 0) && run.url === urls[run.server])).toBe(true)
    }
    const firsts = runs.filter((_, i) => i % 3 === 0).map((run) => run.server)
    expect(new Set(["ours", "baseline", "fastify"].map((server) => firsts.filter((first) => first === server).length)).size)
      .toBe(1)
  })

  it("meets every target at the limits", () => {
    const results = httpScenarios.map((scenario) => result(scenario, { baselineRatio: 0.9, fastifyRatio: 1, p99Ratio: 1.5 }))
    expect(abMissed(report(results, 1.2))).toEqual([])
    expect(abTable(report(results, 1.2))).not.toContain("NO")
  })

  it("misses each target past its limit, and any unexpected response", () => {
    const [first = "", second = "", third = "", fourth = "", fifth = ""] = httpScenarios
    const missed = abMissed(report([
      result(first, { baselineRatio: 0.89 }),
      result(second, { fastifyRatio: 0.99 }),
      result(third, { p99Ratio: 1.51 }),
      { ...result(fourth), unexpected: { today: 0, baseline: 3, fastify: 0 } },
      result(fifth)
    ], 1.21))
    expect(missed).toEqual([
      `${first}: 0.890x the baseline (target >= 0.90x)`,
      `${second}: 0.990x Fastify (target >= 1.00x)`,
      `${third}: p99 1.510x Fastify's (target <= 1.50x)`,
      `${fourth}: 3 unexpected responses or errors from baseline`,
      "peak RSS 1.210x the baseline's (target <= 1.20x)"
    ])
    expect(abTable(report([result(first, { baselineRatio: 0.89 })])).split("\n").filter((line) => line.endsWith("| NO |")))
      .toHaveLength(1)
  })
})
