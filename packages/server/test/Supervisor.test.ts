import { describe, expect, it } from "@effect/vitest"
import { Chunk, Duration, Effect, Either, Schedule } from "effect"
import * as Os from "node:os"
import type { WorkerExit } from "../src/internal/workers.js"
import { restartDefaults, restarts } from "../src/internal/workers.js"
import * as Supervisor from "../src/Supervisor.js"

const exit = (uptimeMillis: number): WorkerExit => ({ worker: 1, pid: 1, code: null, signal: "SIGBUS", uptimeMillis })

/** The delays the supervisor waits before each restart, for workers that ran `uptimes` (ms). */
const delays = (uptimes: ReadonlyArray<number>) =>
  Schedule.run(Schedule.delays(restarts()), 0, uptimes.map(exit)).pipe(
    Effect.map((chunk) => Chunk.toReadonlyArray(chunk).map(Duration.toMillis))
  )

describe("the restarts of a worker", () => {
  it.effect("wait longer each time a worker dies soon after it starts, at most 10 s, and not at all longer after one that ran 10 s", () =>
    Effect.gen(function*() {
      expect(Duration.toMillis(restartDefaults.stable)).toBe(10_000)
      expect(yield* delays([5, 5, 5, 5, 5, 5, 5, 5, 5])).toEqual([100, 200, 400, 800, 1_600, 3_200, 6_400, 10_000, 10_000])
      expect(yield* delays([5, 5, 5, 10_000, 5, 60_000, 9_999])).toEqual([100, 200, 400, 100, 200, 100, 200])
    }))

  it.effect("output each exit with the delay before its restart", () =>
    Effect.gen(function*() {
      const outputs = yield* Schedule.run(restarts(), 0, [exit(5), exit(5)])
      expect(Chunk.toReadonlyArray(outputs).map(([exit, delay]) => [exit.signal, Duration.toMillis(delay)])).toEqual([
        ["SIGBUS", 100],
        ["SIGBUS", 200]
      ])
    }))
})

describe("Supervisor.parseWorkers", () => {
  it("reads a number of processes, or auto for the cores available", () => {
    expect(Supervisor.parseWorkers("1")).toEqual(Either.right(1))
    expect(Supervisor.parseWorkers("16")).toEqual(Either.right(16))
    expect(Supervisor.parseWorkers("auto")).toEqual(Either.right(Os.availableParallelism()))
    for (const bad of ["0", "-1", "1.5", "two", "", "1025"]) {
      expect(Supervisor.parseWorkers(bad)).toEqual(
        Either.left(`expected a number of processes from 1 to 1024 or auto, got "${bad}"`)
      )
    }
  })
})
