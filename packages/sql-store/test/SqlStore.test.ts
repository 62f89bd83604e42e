import { ApiKeyStore, IdempotencyStore, ListPetsQuery, PetRepository, RateLimitStore, StoreError } from "@animal-store/core"
import { describe, expect, it } from "@effect/vitest"
import * as SqlClient from "@effect/sql/SqlClient"
import * as SqliteClient from "@effect/sql-sqlite-node/SqliteClient"
import { Context, Effect, Exit, Layer, Option, Redacted, Tracer } from "effect"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { SqlStore, SqlStoreError, SqlStoreMigrations, SqlStoreSecrets } from "../src/index.js"

// The base on SQLite (PostgreSQL is covered by postgres-store's tests).
const classifier = SqlStoreError.make({
  isCode: (code) => code.startsWith("SQLITE_"),
  rules: [{ code: /^SQLITE_BUSY/, reason: "Unavailable", hint: "the file is locked" }],
  hints: { Unknown: "SQLite reported an error" }
})

const statement = (text: string) => Effect.flatMap(SqlClient.SqlClient, (sql) => sql.unsafe(text))
const migrations = {
  "1_create_pets": statement("CREATE TABLE pets (id integer PRIMARY KEY, name text NOT NULL)"),
  "2_create_store_secrets": statement("CREATE TABLE store_secrets (name text PRIMARY KEY, value text NOT NULL)")
}
const options = { migrations, classifier, otherwise: "open another database file" }

const newFile = () => Path.join(Fs.mkdtempSync(Path.join(Os.tmpdir(), "sql-store-")), "store.db")
const client = (filename: string) => Layer.fresh(Layer.orDie(SqliteClient.layer({ filename })))

describe("SqlStoreMigrations", () => {
  it.effect("applies what is pending, once, and refuses a database newer than the code", () =>
    Effect.gen(function*() {
      const filename = newFile()
      const { "2_create_store_secrets": _, ...older } = migrations
      const migrate = (record: typeof older) =>
        Effect.exit(Effect.provide(SqlStoreMigrations.migrate({ ...options, migrations: record }), client(filename)))
      expect(yield* Effect.provide(SqlStoreMigrations.databaseVersion(), client(filename))).toBe(0)
      expect(yield* migrate(older)).toEqual(Exit.succeed([[1, "create_pets"]]))
      expect(yield* migrate(migrations)).toEqual(Exit.succeed([[2, "create_store_secrets"]]))
      expect(yield* migrate(migrations)).toEqual(Exit.succeed([]))
      expect(yield* Effect.provide(SqlStoreMigrations.databaseVersion(), client(filename))).toBe(2)
      const refused = yield* migrate(older)
      expect(refused).toEqual(Exit.fail(expect.any(StoreError.StoreError)))
      if (Exit.isSuccess(refused) || refused.cause._tag !== "Fail") return
      expect(refused.cause.error.reason).toBe("Incompatible")
      expect(refused.cause.error.message).toBe(
        "The database schema is version 2, newer than version 1 this code knows: it was written by a newer " +
          "animal-store. Upgrade animal-store, or open another database file."
      )
    }))

  it.effect("runs prepare first and complete last, in the migrating transaction; a failing migration applies none", () =>
    Effect.gen(function*() {
      const filename = newFile()
      const steps: Array<string> = []
      yield* Effect.provide(
        SqlStoreMigrations.migrate({
          ...options,
          table: "applied",
          prepare: Effect.sync(() => steps.push("prepare")),
          complete: (version) => Effect.flatMap(SqlClient.SqlClient, (sql) => sql.unsafe(`PRAGMA user_version = ${version}`))
        }),
        client(filename)
      )
      const sql = Context.get(yield* Layer.build(client(filename)), SqlClient.SqlClient)
      expect(steps).toEqual(["prepare"])
      expect(yield* sql`PRAGMA user_version`).toEqual([{ user_version: 2 }])
      expect(yield* SqlStoreMigrations.databaseVersion("applied").pipe(Effect.provideService(SqlClient.SqlClient, sql))).toBe(2)
      const broken = yield* Effect.exit(Effect.provide(
        SqlStoreMigrations.migrate({ ...options, table: "applied", migrations: { ...migrations, "3_broken": statement("CREATE TABLE t (a"), "4_ok": statement("CREATE TABLE u (a)") } }),
        client(filename)
      ))
      expect(Exit.isFailure(broken)).toBe(true)
      expect(yield* SqlStoreMigrations.databaseVersion("applied").pipe(Effect.provideService(SqlClient.SqlClient, sql))).toBe(2)
      expect(SqlStoreMigrations.versionOf({ "10_a": 0, "9_b": 0, readme: 0 })).toBe(10)
    }).pipe(Effect.scoped))
})

describe("SqlStoreSecrets", () => {
  it.effect("a secret is made once per database and read back by every client", () =>
    Effect.gen(function*() {
      const filename = newFile()
      yield* Effect.provide(SqlStoreMigrations.migrate(options), client(filename))
      let made = 0
      const make = () => `secret-${++made}-${"x".repeat(32)}`
      const read = Effect.provide(SqlStoreSecrets.getOrCreate({ classifier }, "s", make), client(filename))
      const first = yield* Effect.all([read, read, read], { concurrency: "unbounded" })
      expect(new Set(first).size).toBe(1)
      expect(yield* read).toBe(first[0])
      const cursor = yield* Effect.provide(ListPetsQuery.CursorSecret, Layer.provide(SqlStoreSecrets.layerCursorSecret({ classifier }), client(filename)))
      const again = yield* Effect.provide(ListPetsQuery.CursorSecret, Layer.provide(SqlStoreSecrets.layerCursorSecret({ classifier }), client(filename)))
      expect(Redacted.value(cursor)).toHaveLength(43)
      expect(Redacted.value(again)).toBe(Redacted.value(cursor))
      expect(Redacted.value(cursor)).not.toBe(first[0])
    }))

  it.effect("a database without the table fails with a StoreError naming what was done", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(
        Effect.provide(SqlStoreSecrets.getOrCreate({ classifier, table: "missing" }, "s", () => "x"), client(newFile()))
      )
      expect(error.reason).toBe("Unknown")
      expect(error.message).toMatch(/^Reading the store's secret: SQLite reported an error \(SQLITE_ERROR: .*no such table: missing/)
    }))
})

describe("SqlStore", () => {
  const unused = <I, S>(tag: Context.Tag<I, S>) =>
    Layer.succeed(tag, {} as S)
  const ports = Layer.mergeAll(
    unused(PetRepository.PetRepository),
    unused(ApiKeyStore.ApiKeyStore),
    unused(RateLimitStore.RateLimitStore),
    unused(IdempotencyStore.IdempotencyStore)
  )

  it.effect("gives the ports and the database's cursor secret, after the migrations", () =>
    Effect.gen(function*() {
      const filename = newFile()
      const layer = SqlStore.layer({ ports, classifier, name: "TestStore", migrate: SqlStoreMigrations.migrate(options) })
      const services = yield* Layer.build(Layer.provide(layer, client(filename)))
      const secret = yield* Effect.provide(ListPetsQuery.CursorSecret, Layer.provide(SqlStoreSecrets.layerCursorSecret({ classifier }), client(filename)))
      expect(Redacted.value(services.unsafeMap.get(ListPetsQuery.CursorSecret.key) as Redacted.Redacted<string>)).toBe(Redacted.value(secret))
      expect(services.unsafeMap.has(IdempotencyStore.IdempotencyStore.key)).toBe(true)
      // Without its migrations there is no table of secrets yet.
      const bare = yield* Effect.exit(Layer.build(Layer.provide(SqlStore.layer({ ports, classifier, name: "TestStore" }), client(newFile()))))
      expect(Exit.isFailure(bare)).toBe(true)
      expect(SqlStore.purgePerCreate).toBe(4)
    }).pipe(Effect.scoped))

  it.effect("makes a span of each port call under the caller's when traces are exported, and none otherwise", () =>
    Effect.gen(function*() {
      const ended: Array<{ readonly name: string; readonly id: string; readonly parent: string | undefined }> = []
      const native = yield* Effect.tracer
      // A tracer other than Effect's native one (which exports nothing): it records the spans it ends.
      const recording = Tracer.make({
        span: (name, parent, context, links, startTime, kind) => {
          const span = native.span(name, parent, context, links, startTime, kind)
          const end = span.end.bind(span)
          return Object.assign(span, {
            end: (endTime: bigint, exit: Exit.Exit<unknown, unknown>) => {
              ended.push({ name, id: span.spanId, parent: Option.getOrUndefined(Option.map(parent, (p) => p.spanId)) })
              end(endTime, exit)
            }
          })
        },
        context: native.context
      })
      const limits = Layer.succeed(RateLimitStore.RateLimitStore, {
        modify: (_subject, f) => Effect.sync(() => f(undefined)[0]),
        get: () => Effect.succeed(undefined)
      })
      const layer = SqlStore.layer({ ports: Layer.merge(ports, limits), classifier, name: "TestStore", migrate: SqlStoreMigrations.migrate(options) })
      const count = Effect.flatMap(RateLimitStore.RateLimitStore, (store) => store.modify("s", () => [1, {} as never]))
      const run = (traced: boolean) =>
        Effect.scoped(Effect.gen(function*() {
          const built = yield* Layer.build(Layer.provide(layer, client(newFile())))
          return yield* Effect.withSpan(Effect.provide(count, built), "caller")
        })).pipe(Effect.withTracer(recording), Effect.withTracerEnabled(traced))
      expect(yield* run(false)).toBe(1)
      expect(ended).toEqual([])
      expect(yield* run(true)).toBe(1)
      const caller = ended.find((span) => span.name === "caller")
      expect(ended.filter((span) => span.name === "TestStore.RateLimitStore.modify")).toHaveLength(1)
      expect(ended.find((span) => span.name === "TestStore.RateLimitStore.modify")?.parent).toBe(caller?.id)
    }))
})
