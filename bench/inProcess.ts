/**
 * In-process: `PetOperations` (after decoding with `PetInput`, as a host boundary does) on the memory and SQLite
 * stores, beside the same query on better-sqlite3 alone, at each store size.
 */
import { type AnimalStore, ListPetsQuery, Pet, PetInput, PetOperations } from "@animal-store/core"
import { MemoryStore } from "@animal-store/memory-store"
import { SqliteStore } from "@animal-store/sqlite-store"
import { Cause, Effect, Exit, Fiber, Layer, ManagedRuntime, Runtime } from "effect"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { fillRepository, fillSqlite, random, statuses } from "./dataset.js"
import type { Measure, Timing } from "./measure.js"
import { batch, measure } from "./measure.js"
import type { Connection } from "./rawSqlite.js"
import { floorSql, openRaw } from "./rawSqlite.js"
import * as SealedCursors from "./sealedCursors.js"

export type InProcessOperation = "listPets limit=20" | "listPets status limit=100" | "createPet" | "getPet"

export interface InProcessResult {
  readonly pets: number
  readonly operation: InProcessOperation
  readonly store: "memory" | "sqlite"
  readonly ours: Measure
  /** The same query on better-sqlite3 alone, on a database of the same size. */
  readonly floor: Measure
  /** ours / floor, in operations per second. */
  readonly ratio: number
}

export interface SizeInfo {
  readonly pets: number
  readonly sqliteFillSeconds: number
  readonly memoryFillSeconds: number
}

const inputs = 4096

/** The secret cursors are sealed with (given to `PetOperations`). */
const cursorSecret = "bench-cursor-secret-0000000000000000"

/**
 * Runs `effect`: its value at once when it completes synchronously, else (a
 * store that waits, such as a create that ends with its commit) a promise of it.
 */
const runFast = <A>(effect: Effect.Effect<A, unknown>): A | Promise<A> => {
  const exit = Effect.runSyncExit(effect)
  if (Exit.isSuccess(exit)) return exit.value
  const defect = Cause.isDie(exit.cause) ? Cause.squash(exit.cause) : undefined
  if (Runtime.isAsyncFiberException(defect)) return Effect.runPromise(Fiber.join(defect.fiber as Fiber.Fiber<A, unknown>))
  throw new Error(`Operation failed: ${String(exit.cause)}`)
}

interface Scenario {
  readonly operation: InProcessOperation
  readonly ours: (ops: PetOperations.PetOperationsService, i: number) => Effect.Effect<unknown, unknown>
  readonly floor: (db: Connection) => (i: number) => unknown
}

const scenarios = (pets: number): ReadonlyArray<Scenario> => {
  const next = random(pets)
  // Cursors anywhere in the first 90% of the table, so every page is full.
  const afterIds = Array.from({ length: inputs }, () => Math.floor(next() * pets * 0.9))
  const sealing = SealedCursors.make(cursorSecret)
  const cursors = afterIds.map((id) => id === 0 ? undefined : sealing.seal(id, undefined))
  const statusCursors = new Map(
    statuses.map((status) =>
      [status, afterIds.map((id) => id === 0 ? undefined : sealing.seal(id, status))] as const
    )
  )
  const ids = Array.from({ length: inputs }, () => 1 + Math.floor(next() * pets))
  const statusOf = (i: number) => statuses[i % statuses.length]!
  const query = (i: number, extra: { readonly limit: number; readonly status?: Pet.PetStatus }) => {
    const cursor = (extra.status === undefined ? cursors : statusCursors.get(extra.status)!)[i % inputs]
    return cursor === undefined ? extra : { ...extra, cursor }
  }
  const body = { name: "Bench pet", categoryId: 7, status: "pending" }
  return [
    {
      operation: "listPets limit=20",
      ours: (ops, i) => Effect.flatMap(PetInput.decodeListPetsQuery(query(i, { limit: 20 })), ops.listPets),
      floor: (db) => {
        const statement = db.prepare(floorSql.list)
        return (i) => statement.all(afterIds[i % inputs], 21)
      }
    },
    {
      operation: "listPets status limit=100",
      ours: (ops, i) =>
        Effect.flatMap(PetInput.decodeListPetsQuery(query(i, { limit: 100, status: statusOf(i) })), ops.listPets),
      floor: (db) => {
        const statement = db.prepare(floorSql.listByStatus)
        return (i) => statement.all(statusOf(i), afterIds[i % inputs], 101)
      }
    },
    {
      operation: "createPet",
      ours: (ops) => Effect.flatMap(PetInput.decodeNewPet(body), (pet) => ops.createPet(pet)),
      // The batch's inserts in one transaction, as a store may commit concurrent creates together.
      floor: (db) => {
        const statement = db.prepare(floorSql.insert)
        return (i) => {
          if (i % batch === 0) db.exec("BEGIN IMMEDIATE")
          statement.get(body.name, body.categoryId, body.status)
          if (i % batch === batch - 1) db.exec("COMMIT")
        }
      }
    },
    {
      operation: "getPet",
      ours: (ops, i) => Effect.flatMap(PetInput.decodePetId(ids[i % inputs]), ops.getPet),
      floor: (db) => {
        const statement = db.prepare(floorSql.find)
        return (i) => statement.get(ids[i % inputs])
      }
    }
  ]
}

const isRows = (value: unknown): value is ReadonlyArray<{ readonly id: number }> => Array.isArray(value)

/** Both ways answer the first inputs alike (ids of the listed or read animals). */
const checkSame = async (scenario: Scenario, ours: PetOperations.PetOperationsService, db: Connection) => {
  if (scenario.operation === "createPet") return
  const floor = scenario.floor(db)
  for (let i = 0; i < 16; i++) {
    const mine = (await runFast(scenario.ours(ours, i))) as { readonly pets?: ReadonlyArray<Pet.Pet>; readonly id?: number }
    const theirs = floor(i) as ReadonlyArray<{ readonly id: number }> | { readonly id: number }
    const mineIds = mine.pets === undefined ? [mine.id] : mine.pets.map((pet) => pet.id)
    const theirIds = isRows(theirs) ? theirs.slice(0, mineIds.length).map((row) => row.id) : [theirs.id]
    if (JSON.stringify(mineIds) !== JSON.stringify(theirIds) || mineIds.length === 0) {
      throw new Error(`${scenario.operation}: store and floor disagree on input ${i}`)
    }
  }
}

/** `PetOperations` on `store`, sealing cursors with `cursorSecret`, with tracing off as the server runs it. */
const opsOf = (store: Layer.Layer<AnimalStore.StorePorts, unknown>) =>
  ManagedRuntime.make(
    PetOperations.layer.pipe(
      Layer.provideMerge(Layer.merge(store, ListPetsQuery.layerCursorSecret(cursorSecret))),
      Layer.provide(Layer.setTracerEnabled(false))
    )
  )

const seconds = (start: number) => (performance.now() - start) / 1000

/** Runs the in-process benchmark at one size. */
export const runSize = async (
  pets: number,
  timing: Timing,
  log: (line: string) => void
): Promise<{ readonly info: SizeInfo; readonly results: ReadonlyArray<InProcessResult> }> => {
  const folder = Fs.mkdtempSync(Path.join(Os.tmpdir(), "animal-store-bench-"))
  const filename = Path.join(folder, "pets.db")
  const memory = opsOf(MemoryStore.layer)
  const sqlite = opsOf(SqliteStore.layer({ filename }))
  let db: Connection | undefined
  try {
    let start = performance.now()
    await fillSqlite(filename, pets)
    const sqliteFillSeconds = seconds(start)
    start = performance.now()
    await memory.runPromise(fillRepository(pets))
    const memoryFillSeconds = seconds(start)
    log(`  ${pets.toLocaleString("en-US")} pets: SQLite filled in ${sqliteFillSeconds.toFixed(1)} s, ` +
      `memory in ${memoryFillSeconds.toFixed(1)} s`)
    const memoryOps = await memory.runPromise(PetOperations.PetOperations)
    const sqliteOps = await sqlite.runPromise(PetOperations.PetOperations)
    db = openRaw(filename)
    db.pragma("synchronous = NORMAL")
    db.pragma("busy_timeout = 5000")
    const results: Array<InProcessResult> = []
    for (const scenario of scenarios(pets)) {
      await checkSame(scenario, memoryOps, db)
      await checkSame(scenario, sqliteOps, db)
      const floor = scenario.floor(db)
      const run = (ops: PetOperations.PetOperationsService) => (i: number) => {
        const done = runFast(scenario.ours(ops, i))
        return done instanceof Promise ? done : undefined
      }
      const measured = await measure([
        { name: "memory", run: run(memoryOps) },
        { name: "sqlite", run: run(sqliteOps) },
        { name: "floor", run: (i) => void floor(i) }
      ], timing)
      for (const store of ["memory", "sqlite"] as const) {
        const ours = measured[store]!
        const result = { pets, operation: scenario.operation, store, ours, floor: measured.floor!, ratio: ours.opsPerSecond / measured.floor!.opsPerSecond }
        results.push(result)
      }
      log(`  ${scenario.operation}: memory ${Math.round(measured.memory!.opsPerSecond)} ops/s, ` +
        `sqlite ${Math.round(measured.sqlite!.opsPerSecond)} ops/s, floor ${Math.round(measured.floor!.opsPerSecond)} ops/s`)
    }
    return { info: { pets, sqliteFillSeconds, memoryFillSeconds }, results }
  } finally {
    db?.close()
    await sqlite.dispose()
    await memory.dispose()
    Fs.rmSync(folder, { recursive: true, force: true })
  }
}
