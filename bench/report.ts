/**
 * The targets of the benchmark, and its results as one table.
 */
import type { AbReport } from "./ab.js"
import type { HttpReport } from "./http.js"
import type { InProcessResult } from "./inProcess.js"
import type { FacadeResult } from "./facade.js"

export const targets = {
  /** HTTP requests per second, ours / the same-rules node:http floor (median of the rounds), on every scenario. */
  httpRatio: 0.8,
  /** HTTP requests per second, ours / the Fastify reference (median of the rounds), on every scenario. */
  fastifyRatio: 1.0,
  /** HTTP p99 latency, ours / the Fastify reference, on every scenario: at most. */
  fastifyP99Ratio: 1.5,
  /** HTTP requests per second, the memory-store server / the Fastify reference (median of the rounds), on its scenarios. */
  memoryFastifyRatio: 1.0,
  /** Peak RSS under load, ours / the Fastify reference: at most. */
  fastifyRssRatio: 1.2,
  /** In-process `listPets` on the SQLite store, ours / better-sqlite3 alone. */
  sqliteListRatio: 0.5,
  /** In-process `guarded.getPet` on SQLite through the facade / the plain better-sqlite3 equivalent, CPU and wall per call, one at a time: at most. */
  facadeOneRatio: 1.5,
  /** The same, 64 calls at once: at most. */
  facadeManyRatio: 1.0,
  /** Server CPU per createPet with a new `Idempotency-Key` / without one: at most (issue 15). */
  idempotencyCpuRatio: 1.2,
  /** `--baseline`: HTTP requests per second, today / the baseline (median of the rounds), on every scenario: at least. */
  baselineRatio: 0.9,
  /** `--baseline`: peak RSS under load, today / the baseline: at most. */
  baselineRssRatio: 1.2
} as const

/** `bench/idempotency.ts --json`: the median and each round's keyed / plain CPU per request. */
export interface IdempotencyResult {
  readonly ratio: number
  readonly rounds: ReadonlyArray<number>
  readonly plainCpuMicros: number
  readonly keyedCpuMicros: number
  readonly pinned: boolean
}

/** The row of the `Idempotency-Key` cost: met when the median of the rounds is within the target. */
export const idempotencyRow = (result: IdempotencyResult): Row => ({
  scenario: "POST /v1/pets with a new Idempotency-Key, server CPU/req vs without",
  ours: `${number(result.keyedCpuMicros, 1)} µs`,
  floor: `${number(result.plainCpuMicros, 1)} µs`,
  ratio: `${number(result.ratio, 2)}x (rounds ${result.rounds.map((r) => number(r, 2)).join(", ")})`,
  target: `<= ${targets.idempotencyCpuRatio}x`,
  met: result.ratio <= targets.idempotencyCpuRatio
})

/** The rows of the facade's `guarded.getPet` against the plain equivalent: met when CPU and wall time are within the target. */
export const facadeRows = (results: ReadonlyArray<FacadeResult>): Array<Row> =>
  results.map((result) => {
    const target = result.concurrency === 1 ? targets.facadeOneRatio : targets.facadeManyRatio
    return {
      scenario: `in-process facade guarded.getPet on SQLite, ${result.concurrency} at once, CPU / wall per call`,
      ours: `${micros(result.facade.cpuMicros)} / ${micros(result.facade.wallMicros)} µs`,
      floor: `${micros(result.plain.cpuMicros)} / ${micros(result.plain.wallMicros)} µs`,
      ratio: `${number(result.cpuRatio, 2)}x / ${number(result.wallRatio, 2)}x`,
      target: `<= ${number(target, 1)}x`,
      met: result.cpuRatio <= target && result.wallRatio <= target
    }
  })

export interface Row {
  readonly scenario: string
  readonly ours: string
  readonly floor: string
  readonly ratio: string
  readonly target: string
  /** `undefined` when the row has no target. */
  readonly met: boolean | undefined
}

const number = (n: number, digits = 0) =>
  n.toLocaleString("en-US", { minimumFractionDigits: digits, maximumFractionDigits: digits })

const micros = (n: number) => number(n, n < 10 ? 2 : 1)

export const inProcessTarget = (result: InProcessResult): number | undefined =>
  result.store === "sqlite" && result.operation.startsWith("listPets") ? targets.sqliteListRatio : undefined

export const inProcessRows = (results: ReadonlyArray<InProcessResult>): Array<Row> =>
  results.map((result) => {
    const target = inProcessTarget(result)
    return {
      scenario: `in-process ${result.store} ${number(result.pets)} pets: ${result.operation}`,
      ours: `${number(result.ours.opsPerSecond)} ops/s ${micros(result.ours.microsPerOp)} µs`,
      floor: `${number(result.floor.opsPerSecond)} ops/s ${micros(result.floor.microsPerOp)} µs`,
      ratio: `${number(result.ratio, 2)}x`,
      target: target === undefined ? "" : `>= ${number(target, 2)}x`,
      met: target === undefined ? undefined : result.ratio >= target
    }
  })

export const httpRows = (report: HttpReport): Array<Row> => [
  ...report.results.flatMap((result): Array<Row> => {
    const cell = (load: typeof result.ours) =>
      `${number(load.requestsPerSecond)} req/s p50 ${number(load.latencyP50Ms)} p99 ${number(load.latencyP99Ms)} ms ` +
      `cpu ${number(load.serverCpuMicrosPerRequest)} µs/req busy ${number(load.serverBusy * 100)}%` +
      (load.unexpected > 0 ? ` (${number(load.unexpected)} unexpected)` : "")
    const range = (ratios: ReadonlyArray<number>) =>
      `rounds ${number(Math.min(...ratios), 2)}-${number(Math.max(...ratios), 2)}`
    const scenario = `HTTP ${number(report.pets)} pets: ${result.scenario}`
    return [
      {
        scenario: `${scenario} (floor)`,
        ours: cell(result.ours),
        floor: cell(result.floor),
        ratio: `${number(result.ratio, 2)}x (${range(result.roundRatios)}, cpu ${number(result.cpuRatio, 2)}x)`,
        target: `>= ${number(targets.httpRatio, 2)}x`,
        met: result.ratio >= targets.httpRatio && result.ours.unexpected === 0 && result.floor.unexpected === 0
      },
      {
        scenario: `${scenario} (Fastify)`,
        ours: cell(result.ours),
        floor: cell(result.fastify),
        ratio: `${number(result.fastifyRatio, 2)}x (${range(result.fastifyRoundRatios)})`,
        target: `>= ${number(targets.fastifyRatio, 2)}x`,
        met: result.fastifyRatio >= targets.fastifyRatio && result.fastify.unexpected === 0
      },
      {
        scenario: `${scenario} (Fastify p99)`,
        ours: `${number(result.ours.latencyP99Ms)} ms`,
        floor: `${number(result.fastify.latencyP99Ms)} ms`,
        ratio: `${number(result.p99Ratio, 2)}x (${range(result.p99RoundRatios)})`,
        target: `<= ${number(targets.fastifyP99Ratio, 2)}x`,
        met: result.p99Ratio <= targets.fastifyP99Ratio
      },
      ...(result.memory === undefined ? [] : [{
        scenario: `${scenario} (memory store, Fastify)`,
        ours: cell(result.memory.measure),
        floor: cell(result.fastify),
        ratio: `${number(result.memory.fastifyRatio, 2)}x (${range(result.memory.fastifyRoundRatios)})`,
        target: `>= ${number(targets.memoryFastifyRatio, 2)}x`,
        met: result.memory.fastifyRatio >= targets.memoryFastifyRatio && result.memory.measure.unexpected === 0
      }])
    ]
  }),
  {
    scenario: "HTTP peak RSS under load (Fastify)",
    ours: `${number(report.peakRssMb.ours)} MB`,
    floor: `${number(report.peakRssMb.fastify)} MB (floor ${number(report.peakRssMb.floor)} MB, memory store ${
      number(report.peakRssMb.memory)
    } MB)`,
    ratio: `${number(report.peakRssMb.ours / report.peakRssMb.fastify, 2)}x`,
    target: `<= ${number(targets.fastifyRssRatio, 2)}x`,
    met: report.peakRssMb.ours <= targets.fastifyRssRatio * report.peakRssMb.fastify
  }
]

/** The rows as a plain-text table. */
export const table = (rows: ReadonlyArray<Row>): string => {
  const header = { scenario: "scenario", ours: "Animal Store", floor: "reference", ratio: "ratio", target: "target", met: "met" }
  const cells = [header, ...rows.map((row) => ({ ...row, met: row.met === undefined ? "" : row.met ? "yes" : "NO" }))]
  const keys = ["scenario", "ours", "floor", "ratio", "target", "met"] as const
  const widths = keys.map((key) => Math.max(...cells.map((cell) => cell[key].length)))
  const line = (cell: Record<typeof keys[number], string>) =>
    keys.map((key, i) => key === "ratio" ? cell[key].padStart(widths[i]!) : cell[key].padEnd(widths[i]!)).join("  ")
      .trimEnd()
  return [line(cells[0]!), widths.map((w) => "-".repeat(w)).join("  "), ...cells.slice(1).map(line)].join("\n")
}

/**
 * What `report` misses of the A/B targets, one line each: today at least
 * `baselineRatio` of the baseline and `fastifyRatio` of Fastify on every
 * scenario, p99 at most `fastifyP99Ratio` of Fastify's, peak RSS at most
 * `baselineRssRatio` of the baseline's, and no unexpected response.
 */
export const abMissed = (report: AbReport): Array<string> => [
  ...report.results.flatMap((result) => [
    ...(result.baselineRatio >= targets.baselineRatio ? [] : [
      `${result.scenario}: ${number(result.baselineRatio, 3)}x the baseline (target >= ${number(targets.baselineRatio, 2)}x)`
    ]),
    ...(result.fastifyRatio >= targets.fastifyRatio ? [] : [
      `${result.scenario}: ${number(result.fastifyRatio, 3)}x Fastify (target >= ${number(targets.fastifyRatio, 2)}x)`
    ]),
    ...(result.p99Ratio <= targets.fastifyP99Ratio ? [] : [
      `${result.scenario}: p99 ${number(result.p99Ratio, 3)}x Fastify's (target <= ${number(targets.fastifyP99Ratio, 2)}x)`
    ]),
    ...Object.entries(result.unexpected).filter(([, count]) => count > 0).map(([server, count]) =>
      `${result.scenario}: ${number(count)} unexpected responses or errors from ${server}`
    )
  ]),
  ...(report.rssRatio <= targets.baselineRssRatio ? [] : [
    `peak RSS ${number(report.rssRatio, 3)}x the baseline's (target <= ${number(targets.baselineRssRatio, 2)}x)`
  ])
]

/** The A/B results as a Markdown table, with the targets under it. */
export const abTable = (report: AbReport): string => {
  const rows = report.results.map((result) => {
    const { baseline, fastify, today } = result.requestsPerSecond
    const p99 = result.p99Ms
    const met = result.baselineRatio >= targets.baselineRatio && result.fastifyRatio >= targets.fastifyRatio &&
      result.p99Ratio <= targets.fastifyP99Ratio && Object.values(result.unexpected).every((count) => count === 0)
    return [
      result.scenario,
      number(today),
      number(baseline),
      `${number(result.baselineRatio, 2)}x`,
      number(fastify),
      `${number(result.fastifyRatio, 2)}x`,
      `${number(p99.today, 1)} / ${number(p99.baseline, 1)} / ${number(p99.fastify, 1)}`,
      `${number(result.p99Ratio, 2)}x`,
      met ? "yes" : "NO"
    ]
  })
  const rss = report.peakRssMb
  const lines = [
    ["scenario", "today req/s", "baseline req/s", "today / baseline", "Fastify req/s", "today / Fastify", "p99 ms today / baseline / Fastify", "p99 today / Fastify", "met"],
    ...rows,
    [
      "peak RSS (MB)",
      number(rss.today),
      number(rss.baseline),
      `${number(report.rssRatio, 2)}x`,
      number(rss.fastify),
      `${number(rss.today / rss.fastify, 2)}x`,
      "",
      "",
      report.rssRatio <= targets.baselineRssRatio ? "yes" : "NO"
    ]
  ]
  const markdown = (cells: ReadonlyArray<string>) => `| ${cells.join(" | ")} |`
  return [
    markdown(lines[0]!),
    markdown(lines[0]!.map((_, i) => i === 0 ? "---" : "---:")),
    ...lines.slice(1).map(markdown),
    "",
    `Targets: today >= ${number(targets.baselineRatio, 2)}x the baseline and >= ${number(targets.fastifyRatio, 2)}x Fastify ` +
    `in req/s on every scenario, p99 <= ${number(targets.fastifyP99Ratio, 2)}x Fastify's, ` +
    `peak RSS <= ${number(targets.baselineRssRatio, 2)}x the baseline's. Ratios are medians of the rounds' ratios; ` +
    `req/s and p99, medians of each server's rounds.`
  ].join("\n")
}
