/**
 * CPU µs per port call of the SQLite store under the load of an HTTP server:
 * 64 fibers, each iteration authenticating (`ApiKeyStore.findByDigest`),
 * counting (`RateLimitStore.modify`), then inserting or listing animals; and
 * each of those calls alone, 64 at a time. On a fresh file with 10,000
 * animals, the build in `dist` of the repository given (default this one),
 * so that another checkout can be measured the same way:
 *
 *   node --import tsx packages/sqlite-store/bench/ports.ts [<repository root>]
 */
import * as Fs from "node:fs"
import { createRequire } from "node:module"
import * as Os from "node:os"
import * as Path from "node:path"
import { pathToFileURL } from "node:url"

import type * as C from "@animal-store/core"
import type * as E from "effect"

type Store = typeof import("../src/index.js")

const root = Path.resolve(process.argv[2] ?? Path.join(import.meta.dirname, "../../.."))
const storePackage = Path.join(root, "packages/sqlite-store")
const require = createRequire(Path.join(storePackage, "package.json"))
const load = (path: string) => import(pathToFileURL(path).href)
const { SqliteStore } = (await load(Path.join(storePackage, "dist/index.js"))) as Store
const core = (await load(require.resolve("@animal-store/core"))) as typeof C & { readonly Durability?: any }
const { Effect, ManagedRuntime, Option } = (await load(require.resolve("effect"))) as typeof E
const { ApiKey, ApiKeyStore, Pet, PetRepository, RateLimitStore } = core

const pets = 10_000
const iterations = 20_000
const fibers = 64

const cpuMicros = () => {
  const { system, user } = process.cpuUsage()
  return user + system
}

const folder = Fs.mkdtempSync(Path.join(Os.tmpdir(), "animal-store-ports-"))
const runtime = ManagedRuntime.make(SqliteStore.layer({ filename: Path.join(folder, "store.db") }) as any)
try {
  const services = (await runtime.runPromise(Effect.all({
    repository: PetRepository.PetRepository,
    keys: ApiKeyStore.ApiKeyStore,
    limits: RateLimitStore.RateLimitStore
  }) as any)) as {
    repository: C.PetRepository.PetRepositoryService
    keys: C.ApiKeyStore.ApiKeyStoreService
    limits: C.RateLimitStore.RateLimitStoreService
  }
  const { keys, limits, repository } = services
  // A store that defers its commits to the adapter (`Durability`, before issue 36) is measured as
  // its adapter ran it: each iteration answered once its writes are durable.
  const durability = core.Durability === undefined
    ? undefined
    : (await runtime.runPromise(core.Durability.Durability as any)) as {
      deferCommit: (effect: any, onDurable: (exit: any) => void) => any
    }
  const durable = <A, Err>(effect: E.Effect.Effect<A, Err>): E.Effect.Effect<A, Err> =>
    durability === undefined
      ? effect
      : Effect.async<A, Err>((resume) => {
        Effect.runFork(durability.deferCommit(effect, (exit: E.Exit.Exit<A, Err>) => resume(exit)))
      })

  const newPet = { name: "Rex", categoryId: Pet.CategoryId.make(3), status: "available" } as C.Pet.NewPet
  for (let i = 0; i < pets; i += 500) {
    await Effect.runPromise(
      durable(Effect.forEach(Array.from({ length: 500 }), () => repository.insert(newPet), { concurrency: "unbounded" }))
    )
  }
  const digest = "a".repeat(64)
  await Effect.runPromise(durable(keys.insert(
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
  )))
  const state: C.RateLimitStore.RateLimitState = {
    minuteStart: 0,
    minuteCount: 1,
    dayStart: 0,
    dayCount: 1,
    refusedCount: 0,
    bannedUntil: 0,
    previousMinuteCount: 0
  }
  const afterId = (i: number) => Pet.PetId.make(1 + (i * 7919) % (pets - 100))

  /** CPU and wall µs per iteration of `run`, `fibers` at a time, median of 5 rounds after a warm-up. */
  const measure = async (run: (i: number) => E.Effect.Effect<unknown, unknown>, count = iterations) => {
    const round = async () => {
      let next = 0
      const worker: E.Effect.Effect<void, unknown> = Effect.suspend((): E.Effect.Effect<void, unknown> => {
        const i = next++
        return i < count ? Effect.zipRight(durable(run(i)), Effect.suspend(() => worker)) : Effect.void
      })
      const start = cpuMicros()
      const started = performance.now()
      await Effect.runPromise(Effect.all(Array.from({ length: fibers }, () => worker), { concurrency: "unbounded", discard: true }))
      return [(cpuMicros() - start) / count, (performance.now() - started) * 1000 / count] as const
    }
    await round()
    const rounds: Array<readonly [number, number]> = []
    for (let i = 0; i < 5; i++) rounds.push(await round())
    return rounds.sort((a, b) => a[0] - b[0])[2]!
  }

  const results: Record<string, readonly [number, number]> = {
    "auth+modify+insert/list": await measure((i) =>
      Effect.zipRight(
        Effect.zipRight(keys.findByDigest(digest), limits.modify(`key:${i % 64}`, (s) => [s, s ?? state])),
        i % 2 === 0 ? Effect.asVoid(repository.insert(newPet)) : Effect.asVoid(repository.list({ afterId: afterId(i), limit: 21 }))
      )
    ),
    "findByDigest": await measure(() => keys.findByDigest(digest)),
    "modify": await measure((i) => limits.modify(`key:${i % 64}`, (s) => [s, s ?? state])),
    "findById": await measure((i) => repository.findById(Pet.PetId.make(1 + (i * 7919) % pets))),
    "list limit 21": await measure((i) => repository.list({ afterId: afterId(i), limit: 21 })),
    "insert": await measure(() => repository.insert(newPet), 10_000)
  }
  console.log(`${"".padEnd(24)} ${"cpu µs".padStart(8)} ${"wall µs".padStart(8)}`)
  for (const [name, [cpu, wall]] of Object.entries(results)) {
    console.log(`${name.padEnd(24)} ${cpu.toFixed(1).padStart(8)} ${wall.toFixed(1).padStart(8)}`)
  }
} finally {
  await runtime.dispose()
  Fs.rmSync(folder, { recursive: true, force: true })
}
