import { Pet, PetRepository } from "@animal-store/core"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer, Option } from "effect"
import { SqliteStore } from "../src/index.js"
import { collectStderr, exitOf, linesOf, spawnFixture, tempDatabase } from "./internal/files.js"

interface Tally {
  readonly Accepted: number
  readonly RateLimited: number
  readonly Banned: number
  readonly startedAt: number
  readonly endedAt: number
}

describe("SqliteStore across processes", () => {
  it.scoped("two processes counting one key at once accept exactly the limit, and ban exactly", () =>
    Effect.gen(function*() {
      const filename = yield* tempDatabase
      const perMinute = 300
      const attempts = 400
      const banAfter = 10
      const now = Date.UTC(2030, 0, 1, 12, 0, 30)
      const tallies = yield* Effect.promise(async () => {
        const workers = [0, 1].map(() =>
          spawnFixture("rateLimitWorker.ts", [filename, String(perMinute), String(attempts), String(now)])
        )
        try {
          const outputs = workers.map((worker) => ({ lines: linesOf(worker), stderr: collectStderr(worker) }))
          const next = async (i: number) => {
            const line = await outputs[i]!.lines.next()
            if (line.done === true) throw new Error(`rateLimitWorker.ts failed: ${outputs[i]!.stderr.text()}`)
            return line.value
          }
          expect(await Promise.all([next(0), next(1)])).toEqual(["ready", "ready"])
          for (const worker of workers) worker.stdin.write("go\n")
          return (await Promise.all([next(0), next(1)])).map((line) => JSON.parse(line) as Tally)
        } finally {
          for (const worker of workers) worker.kill("SIGKILL")
          await Promise.all(workers.map(exitOf))
        }
      })
      const [a, b] = tallies as [Tally, Tally]
      // The two loops ran at the same time, so their transactions interleaved.
      expect(a.startedAt).toBeLessThan(b.endedAt)
      expect(b.startedAt).toBeLessThan(a.endedAt)
      const total = (outcome: "Accepted" | "RateLimited" | "Banned") => a[outcome] + b[outcome]
      expect(total("Accepted")).toBe(perMinute)
      expect(total("RateLimited")).toBe(banAfter)
      expect(total("Banned")).toBe(2 * attempts - perMinute - banAfter)
    }))

  it.scoped("processes creating under one idempotency key at once create one animal, and replay it", () =>
    Effect.gen(function*() {
      const filename = yield* tempDatabase
      const calls = 25
      const results = yield* Effect.promise(async () => {
        const workers = [0, 1].map(() => spawnFixture("idempotentCreateWorker.ts", [filename, String(calls)]))
        try {
          const outputs = workers.map((worker) => ({ lines: linesOf(worker), stderr: collectStderr(worker) }))
          const next = async (i: number) => {
            const line = await outputs[i]!.lines.next()
            if (line.done === true) throw new Error(`idempotentCreateWorker.ts failed: ${outputs[i]!.stderr.text()}`)
            return line.value
          }
          expect(await Promise.all([next(0), next(1)])).toEqual(["ready", "ready"])
          for (const worker of workers) worker.stdin.write("go\n")
          return (await Promise.all([next(0), next(1)])).map((line) =>
            JSON.parse(line) as { created: number; replayed: number; ids: Array<number> }
          )
        } finally {
          for (const worker of workers) worker.kill("SIGKILL")
          await Promise.all(workers.map(exitOf))
        }
      })
      expect(results.reduce((sum, result) => sum + result.created, 0)).toBe(1)
      expect(results.reduce((sum, result) => sum + result.replayed, 0)).toBe(2 * calls - 1)
      expect(results.map((result) => result.ids)).toEqual([[1], [1]])
      const stored = yield* Effect.flatMap(PetRepository.PetRepository, (pets) => pets.list({ limit: 10 })).pipe(
        Effect.provide(Layer.fresh(SqliteStore.layer({ filename })))
      )
      expect(stored.map((pet) => pet.id)).toEqual([1])
    }))

  it.scoped("every insert acknowledged before kill -9 is there after reopening", () =>
    Effect.gen(function*() {
      const filename = yield* tempDatabase
      const acknowledged = yield* Effect.promise(async () => {
        const child = spawnFixture("insertLoop.ts", [filename])
        const stderr = collectStderr(child)
        const ids: Array<number> = []
        for await (const line of linesOf(child)) {
          ids.push(Number(line))
          if (ids.length === 400) child.kill("SIGKILL")
        }
        const exit = await exitOf(child)
        if (exit.signal !== "SIGKILL") throw new Error(`insertLoop.ts stopped on its own: ${stderr.text()}`)
        return ids
      })
      expect(acknowledged.length).toBeGreaterThanOrEqual(400)
      const stored = yield* Effect.gen(function*() {
        const pets = yield* PetRepository.PetRepository
        const found = yield* Effect.forEach(acknowledged, (id) => pets.findById(Pet.PetId.make(id)))
        const all: Array<Pet.Pet> = []
        for (let page = yield* pets.list({ limit: 100 }); page.length > 0;) {
          all.push(...page)
          page = yield* pets.list({ afterId: page[page.length - 1]!.id, limit: 100 })
        }
        return { found, all }
      }).pipe(Effect.provide(Layer.fresh(SqliteStore.layer({ filename }))))
      expect(stored.found.every(Option.isSome)).toBe(true)
      expect(stored.found.map((pet) => Option.getOrThrow(pet).name)).toEqual(acknowledged.map((_, n) => `pet ${n}`))
      expect(stored.all.slice(0, acknowledged.length).map((pet) => pet.id)).toEqual(acknowledged)
      expect(stored.all.length - acknowledged.length).toBeLessThanOrEqual(1)
    }))
})
