/**
 * CPU µs per call of the hot port operations of the SQLite store (the calls
 * every HTTP request makes: `ApiKeyStore.findByDigest`, `RateLimitStore.modify`;
 * and `PetRepository.list/findById/insert`), on a fresh database file with
 * 10,000 animals, median of 7 rounds.
 *
 *   node --import tsx packages/sqlite-store/bench/ports.ts   (from the repository root)
 */
import { ApiKey, ApiKeyStore, Pet, PetRepository, RateLimitStore } from "@animal-store/core"
import { Effect, ManagedRuntime, Option } from "effect"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { SqliteStore } from "../src/index.js"

const cpuMicros = () => {
  const { system, user } = process.cpuUsage()
  return user + system
}

const timePerOp = (run: (i: number) => void, ops = 4_000): number => {
  for (let i = 0; i < ops; i++) run(i)
  const rounds: Array<number> = []
  for (let round = 0; round < 7; round++) {
    const start = cpuMicros()
    for (let i = 0; i < ops; i++) run(i)
    rounds.push((cpuMicros() - start) / ops)
  }
  return rounds.sort((a, b) => a - b)[3]!
}

const pets = 10_000
const folder = Fs.mkdtempSync(Path.join(Os.tmpdir(), "animal-store-ports-"))
const runtime = ManagedRuntime.make(SqliteStore.layer({ filename: Path.join(folder, "store.db") }))
try {
  const { keys, limits, repository } = await runtime.runPromise(Effect.all({
    repository: PetRepository.PetRepository,
    keys: ApiKeyStore.ApiKeyStore,
    limits: RateLimitStore.RateLimitStore
  }))
  const newPet: Pet.NewPet = { name: "Rex", categoryId: Pet.CategoryId.make(3), status: "available" }
  Effect.runSync(Effect.forEach(Array.from({ length: pets }), () => repository.insert(newPet), { discard: true }))
  const digest = "a".repeat(64)
  Effect.runSync(keys.insert(
    new ApiKey.ApiKey({
      id: "key_1",
      prefix: "as_test_",
      digest,
      plan: "free",
      limits: { perMinute: 60, perDay: 1000 },
      environment: "staging",
      createdAt: new Date(0),
      revokedAt: Option.none()
    })
  ))
  const state: RateLimitStore.RateLimitState = {
    minuteStart: 0,
    minuteCount: 1,
    dayStart: 0,
    dayCount: 1,
    refusedCount: 0,
    bannedUntil: 0
  }
  const results = {
    "findByDigest": timePerOp(() => Effect.runSync(keys.findByDigest(digest))),
    "modify": timePerOp((i) => Effect.runSync(limits.modify(`key:${i % 64}`, (s) => [s, s ?? state]))),
    "findById": timePerOp((i) => Effect.runSync(repository.findById(Pet.PetId.make(1 + (i * 7919) % pets)))),
    "list limit 21": timePerOp((i) => Effect.runSync(repository.list({ afterId: Pet.PetId.make(1 + (i * 7919) % (pets - 100)), limit: 21 }))),
    "list status limit 101": timePerOp((i) =>
      Effect.runSync(repository.list({ status: "available", afterId: Pet.PetId.make(1 + (i * 7919) % (pets - 1000)), limit: 101 }))
    ),
    "insert": timePerOp(() => Effect.runSync(repository.insert(newPet)), 2_000)
  }
  for (const [name, micros] of Object.entries(results)) console.log(`${name.padEnd(24)} ${micros.toFixed(1)} µs`)
} finally {
  await runtime.dispose()
  Fs.rmSync(folder, { recursive: true, force: true })
}

