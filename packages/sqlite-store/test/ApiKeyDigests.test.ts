import { AccessConfig, ApiKey, ApiKeyAuth, ApiKeyStore, Plan } from "@animal-store/core"
import { describe, expect, it } from "@effect/vitest"
import { Context, Effect, Layer, Option, Redacted } from "effect"
import * as fc from "effect/FastCheck"
import * as Fs from "node:fs"
import { SqliteStore } from "../src/index.js"
import { databaseFiles, nextTurn, tempDatabase } from "./internal/files.js"

/** The files of the database holding `text` (as UTF-8). */
const filesContaining = (filename: string, text: string): ReadonlyArray<string> =>
  databaseFiles(filename).filter((file) => Fs.readFileSync(file).includes(Buffer.from(text, "utf8")))

describe("SqliteApiKeyStore", () => {
  it.scoped("stores digests only: no issued secret is in the database, its WAL or shared-memory file", () =>
    Effect.gen(function*() {
      const filename = yield* tempDatabase
      const auth = Layer.provide(
        ApiKeyAuth.layer,
        Layer.merge(Layer.fresh(SqliteStore.layer({ filename })), AccessConfig.layer())
      )
      const scan = (secrets: ReadonlyArray<string>, digests: ReadonlyArray<string>) => {
        expect(databaseFiles(filename)).toContain(filename)
        for (const secret of secrets) {
          expect(filesContaining(filename, secret)).toEqual([])
          expect(filesContaining(filename, secret.slice("ask_live_".length))).toEqual([])
        }
        // The scan does find what is stored.
        for (const digest of digests) expect(filesContaining(filename, digest).length).toBeGreaterThan(0)
      }

      const { digests, secrets } = yield* Effect.gen(function*() {
        const keys = yield* ApiKeyAuth.ApiKeyAuth
        const issued = [
          yield* keys.issue({ plan: "free" }),
          yield* keys.issue({ plan: "business", environment: "staging" }),
          yield* keys.issue({ plan: "enterprise", limits: { perMinute: 5, perDay: 50 } })
        ]
        const provisioned = Redacted.make("ask_live_provisioned_secret_0123456789")
        const key = yield* keys.provision(provisioned, { plan: "pro" })
        const secrets = [...issued.map((issued) => Redacted.value(issued.secret)), Redacted.value(provisioned)]
        const digests = [...issued.map((issued) => issued.key.digest), key.digest]
        expect(new Set(digests).size).toBe(4)
        // While the store is open, the latest writes are in the WAL.
        scan(secrets, digests)
        return { secrets, digests }
      }).pipe(Effect.provide(auth))
      // Closed: the WAL was checkpointed into the database file.
      scan(secrets, digests)
    }))

  it.scoped("a key kept in memory is refused from the turn after another connection revoked it", () =>
    Effect.gen(function*() {
      const filename = yield* tempDatabase
      const [here, elsewhere] = yield* Effect.all([connection(filename), connection(filename)])
      const secret = "ask_live_keptkeykeptkeykeptkey00"
      const issued = yield* here.auth.provision(Redacted.make(secret), { plan: "pro" })
      expect((yield* here.auth.authenticate(secret)).keyId).toBe(issued.id)
      yield* nextTurn
      expect((yield* here.auth.authenticate(secret)).keyId).toBe(issued.id)
      yield* elsewhere.keys.revoke(issued.id, new Date(1_000))
      yield* nextTurn
      const refused = yield* Effect.flip(here.auth.authenticate(secret))
      expect(refused._tag === "Unauthorized" && refused.reason).toBe("revoked")
    }))

  it.scoped("a key kept in memory is found revoked at once once revoked through the same store, in the same turn too", () =>
    Effect.gen(function*() {
      // In memory: no other connection, so only the store's own revocation can tell.
      const keys = Context.get(yield* Layer.build(SqliteStore.layer({ filename: ":memory:" })), ApiKeyStore.ApiKeyStore)
      const stored = yield* keys.insert(apiKey(4))
      expect(yield* keys.findByDigest(stored.digest)).toEqual(Option.some(stored))
      const [revoked, lookup] = yield* Effect.all([
        keys.revoke(stored.id, new Date(2_000)),
        Effect.zipRight(Effect.yieldNow(), keys.findByDigest(stored.digest))
      ], { concurrency: "unbounded" })
      expect(Option.map(revoked, (key) => key.revokedAt)).toEqual(Option.some(Option.some(new Date(2_000))))
      // The revocation committed before its call completed: the lookup after it saw it.
      expect(lookup).toEqual(revoked)
      expect(yield* keys.findByDigest(stored.digest)).toEqual(revoked)
    }))

  it.scoped("a key kept by each of two connections is refused by both after either revokes it", () =>
    Effect.gen(function*() {
      const filename = yield* tempDatabase
      const [here, elsewhere] = yield* Effect.all([connection(filename), connection(filename)])
      const stored = yield* here.keys.insert(apiKey(3))
      expect(yield* here.keys.findByDigest(stored.digest)).toEqual(Option.some(stored))
      expect(yield* elsewhere.keys.findByDigest(stored.digest)).toEqual(Option.some(stored))
      yield* nextTurn
      const revoked = yield* elsewhere.keys.revoke(stored.id, new Date(7_000))
      yield* nextTurn
      expect(yield* here.keys.findByDigest(stored.digest)).toEqual(revoked)
      expect(yield* elsewhere.keys.findByDigest(stored.digest)).toEqual(revoked)
    }))

  it.scoped("a key found by digest is read as another connection last committed it, without waiting for a turn", () =>
    Effect.gen(function*() {
      const filename = yield* tempDatabase
      const [here, elsewhere] = yield* Effect.all([connection(filename), connection(filename)])
      const stored = yield* here.keys.insert(apiKey(1))
      expect(yield* here.keys.findByDigest(stored.digest)).toEqual(Option.some(stored))
      const revoked = yield* elsewhere.keys.revoke(stored.id, new Date(5_000))
      expect(Option.map(revoked, (k) => k.revokedAt)).toEqual(Option.some(Option.some(new Date(5_000))))
      expect(yield* here.keys.findByDigest(stored.digest)).toEqual(revoked)
    }))

  // The two connections are opened once for all the runs (opening two stores, each with its checkpointer
  // thread, took most of a run); each run has keys of its own, so it starts as on an empty store.
  it.scoped(
    "two connections inserting, revoking and finding keys in any order find what a single store would, a turn later",
    () =>
      Effect.gen(function*() {
        const filename = yield* tempDatabase
        const connections = yield* Effect.all([connection(filename), connection(filename)])
        const steps = fc.array(
          fc.record({
            on: fc.constantFrom(0, 1),
            op: fc.constantFrom("insert", "revoke", "find"),
            key: fc.integer({ min: 1, max: 2 })
          }),
          { minLength: 1, maxLength: 25 }
        )
        let runs = 0
        const run = (steps: ReadonlyArray<{ readonly on: number; readonly op: string; readonly key: number }>) =>
          Effect.gen(function*() {
            const first = ++runs * 10
            const model = new Map<number, ApiKey.ApiKey>()
            for (const [i, { on, op }] of steps.entries()) {
              const key = first + steps[i]!.key
              const keys = connections[on]!.keys
              if (op === "insert") {
                const inserted = yield* keys.insert(apiKey(key))
                if (!model.has(key)) model.set(key, apiKey(key))
                expect(inserted).toEqual(model.get(key))
              } else if (op === "revoke") {
                const at = new Date(1_000 + i)
                const revoked = yield* keys.revoke(apiKey(key).id, at)
                const before = model.get(key)
                if (before !== undefined && Option.isNone(before.revokedAt)) {
                  model.set(key, new ApiKey.ApiKey({ ...before, revokedAt: Option.some(at) }))
                }
                expect(revoked).toEqual(Option.fromNullable(model.get(key)))
              } else {
                expect(yield* keys.findByDigest(apiKey(key).digest)).toEqual(Option.fromNullable(model.get(key)))
              }
              yield* nextTurn
            }
          })
        yield* Effect.promise(() =>
          fc.assert(fc.asyncProperty(steps, (steps) => Effect.runPromise(run(steps))), { numRuns: 150 })
        )
      }),
    180_000
  )
})

/** One store on `filename`, as another process would open it. */
const connection = (filename: string) =>
  Effect.map(
    Layer.build(Layer.provideMerge(
      Layer.provideMerge(ApiKeyAuth.layer, AccessConfig.layer()),
      Layer.fresh(Layer.provideMerge(SqliteStore.layerPorts, SqliteStore.layerClient({ filename })))
    )),
    (context) => ({
      keys: Context.get(context, ApiKeyStore.ApiKeyStore),
      auth: Context.get(context, ApiKeyAuth.ApiKeyAuth)
    })
  )


const apiKey = (n: number) =>
  new ApiKey.ApiKey({
    id: `key_cachecachecache${n}`,
    prefix: "ask_live_abcd",
    digest: String(n).padStart(64, "0"),
    plan: "free",
    limits: Plan.limitsByPlan.free,
    environment: "production",
    createdAt: new Date(n),
    revokedAt: Option.none()
  })
