import { ApiKey, ApiKeyStore, Delivery, Idempotency, IdempotencyStore, Pet, PetRepository, RateLimitStore, StoreError } from "@animal-store/core"
import { countCall } from "@animal-store/core/test"
import { describe, expect, it } from "@effect/vitest"
import * as Reactivity from "@effect/experimental/Reactivity"
import * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import * as SqliteClient from "@effect/sql-sqlite-node/SqliteClient"
import { Config, ConfigError, ConfigProvider, Context, Deferred, Effect, Exit, Fiber, Layer, Metric, MetricState, Option, TestClock } from "effect"
import * as ChildProcess from "node:child_process"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { SqliteMigrations, SqliteStore } from "../src/index.js"
import * as Database from "../src/internal/database.js"
import * as Driver from "../src/internal/driver.js"
import * as ApiKeyStoreSqlite from "../src/internal/apiKeyStore.js"
import * as IdempotencyStoreSqlite from "../src/internal/idempotencyStore.js"
import * as PetRepositorySqlite from "../src/internal/petRepository.js"
import * as RateLimitStoreSqlite from "../src/internal/rateLimitStore.js"
import { listStatement } from "../src/internal/petSql.js"
import { collectStderr, exitOf, linesOf, open, spawnFixture, tempDatabase, tempFolder } from "./internal/files.js"

const allVersions = Array.from({ length: SqliteMigrations.schemaVersion }, (_, i) => i + 1)

const clientLayer = SqliteStore.layerClient

const storeLayer = (options: SqliteStore.Options) =>
  Layer.provideMerge(SqliteStore.layerPorts, clientLayer(options))

/** The ports that write, with their `Database`, on the client of `options`. */
const databaseLayer = (options: SqliteStore.Options) =>
  Layer.mergeAll(PetRepositorySqlite.layer, IdempotencyStoreSqlite.layer, RateLimitStoreSqlite.layer).pipe(
    Layer.provideMerge(Layer.scoped(Database.Database, Effect.flatMap(SqliteClient.SqliteClient, Database.make))),
    Layer.provideMerge(clientLayer(options))
  )

/** An unmigrated client of `filename`. */
const bareClient = (filename: string) => SqliteClient.layer({ filename })

/** A write that stores an animal, then one that SQLite refuses at its statement: the call fails. */
const writeNowhere = Effect.flatMap(Database.Database, (database) =>
  database.write("Writing nowhere", (statements) => {
    statements.run("INSERT INTO pets (name, category_id, status) VALUES ('lost', 1, 'sold')")
    return statements.run("INSERT INTO no_such_table VALUES (1)")
  }))

/** Runs `effects` at once (one turn of the event loop, so one transaction): their exits. */
const inOneTurn = <R>(effects: ReadonlyArray<Effect.Effect<unknown, StoreError.StoreError, R>>) =>
  Effect.all(effects.map(Effect.exit), { concurrency: "unbounded" })

/** Runs `effect` as a held caller: its writes wait in the turn's transaction. */
const held = <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.locally(effect, Delivery.held, true)

/** The keys and the ports that write, with their `Database`, on `filename`; and another connection to it that never waits for a lock. */
const withKeys = (filename: string) =>
  Effect.gen(function*() {
    const context = yield* Layer.build(Layer.provideMerge(ApiKeyStoreSqlite.layer, databaseLayer({ filename })))
    const other = open(filename)
    other.pragma("busy_timeout = 0")
    yield* Effect.addFinalizer(() => Effect.sync(() => other.close()))
    return { context, other }
  })

/** A free key of `id` found by `digest`. */
const freeKey = (id: string, digest: string) =>
  new ApiKey.ApiKey({
    id,
    prefix: `ask_live_${id.slice(-4)}`,
    digest,
    plan: "free",
    limits: { perMinute: 10, perDay: 100 },
    environment: "production",
    createdAt: new Date(0),
    revokedAt: Option.none()
  })

/** Counts one request of key `id`'s subject: its minute count goes up by one. */
const countKey = (limits: RateLimitStore.RateLimitStoreService, id: string) =>
  limits.modify(`key:${id}`, (state) => [0, { minuteStart: 0, minuteCount: (state?.minuteCount ?? 0) + 1, dayStart: 0, dayCount: 0, refusedCount: 0, bannedUntil: 0, previousMinuteCount: 0 }])

/** The `StoreError` opening `options` fails with. */
const openError = (options: SqliteStore.Options) =>
  Layer.build(SqliteStore.layer(options)).pipe(Effect.scoped, Effect.flip)

const newPet: Pet.NewPet = { name: "Rex", categoryId: Pet.CategoryId.make(1), status: "available" }

const appliedMigrations = Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql<{ readonly id: number }>`SELECT migration_id AS id FROM effect_sql_migrations ORDER BY migration_id`.pipe(
    Effect.map((rows) => rows.map((row) => row.id))
  ))

const tableNames = Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql<{ readonly name: string }>`SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name`.pipe(
    Effect.map((rows) => rows.map((row) => row.name))
  ))

const pragma = (name: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.map(sql.unsafe<Record<string, unknown>>(`PRAGMA ${name}`), (rows) => Object.values(rows[0] ?? {})[0]))

describe("SqliteStore", () => {
  it.scoped("creates the file and its folder, with WAL, synchronous NORMAL, SQLite's checkpoint interval and a busy timeout", () =>
    Effect.gen(function*() {
      const filename = yield* tempDatabase
      expect(Fs.existsSync(Path.dirname(filename))).toBe(false)
      yield* Effect.gen(function*() {
        expect(yield* pragma("journal_mode")).toBe("wal")
        expect(yield* pragma("synchronous")).toBe(1)
        expect(yield* pragma("busy_timeout")).toBe(5_000)
        expect(yield* pragma("wal_autocheckpoint")).toBe(1_000)
      }).pipe(Effect.provide(clientLayer({ filename })))
      expect(Fs.statSync(filename).isFile()).toBe(true)
      const full = yield* pragma("synchronous").pipe(
        Effect.provide(clientLayer({ filename, synchronous: "FULL", busyTimeout: 250 })),
        Effect.zip(pragma("busy_timeout").pipe(Effect.provide(clientLayer({ filename, busyTimeout: 250 }))))
      )
      expect(full).toEqual([2, 250])
    }))

  it.scoped("the driver connection the ports write on has the client's synchronous and checkpoint settings, and no busy timeout", () =>
    Effect.gen(function*() {
      const filename = yield* tempDatabase
      yield* Layer.build(SqliteStore.layer({ filename, synchronous: "FULL" })).pipe(Effect.scoped)
      const connection = Driver.open(filename, { synchronous: 2, autocheckpoint: 2_000 })
      yield* Effect.addFinalizer(() => Effect.sync(() => connection.close()))
      const value = (name: string) => Object.values((connection.pragma(name) as Array<Record<string, unknown>>)[0]!)[0]
      expect([value("synchronous"), value("wal_autocheckpoint"), value("busy_timeout")]).toEqual([
        2,
        2_000,
        0
      ])
    }))

  it.scoped("migrates a new database to the current version once, and keeps data across reopening", () =>
    Effect.gen(function*() {
      const filename = yield* tempDatabase
      const first = yield* Effect.gen(function*() {
        expect(yield* appliedMigrations).toEqual(allVersions)
        expect(yield* pragma("user_version")).toBe(SqliteMigrations.schemaVersion)
        expect(yield* tableNames).toEqual(
          expect.arrayContaining(["api_keys", "effect_sql_migrations", "idempotency_keys", "pets", "rate_limits", "store_secrets"])
        )
        return yield* Effect.flatMap(PetRepository.PetRepository, (pets) => pets.insert(newPet))
      }).pipe(Effect.provide(storeLayer({ filename })))
      yield* Effect.gen(function*() {
        expect(yield* SqliteMigrations.migrate).toEqual([])
        expect(yield* appliedMigrations).toEqual(allVersions)
        const pets = yield* PetRepository.PetRepository
        expect(yield* pets.findById(first.id)).toEqual(Option.some(first))
        expect((yield* pets.insert(newPet)).id).toBeGreaterThan(first.id)
      }).pipe(Effect.provide(storeLayer({ filename })))
    }))

  it.scoped("refuses a database newer than the code as Incompatible and leaves it unchanged", () =>
    Effect.gen(function*() {
      const filename = yield* tempDatabase
      const newer = SqliteMigrations.schemaVersion + 1
      yield* Effect.flatMap(SqlClient.SqlClient, (sql) =>
        sql`INSERT INTO effect_sql_migrations (migration_id, name) VALUES (${newer}, 'from_the_future')`).pipe(
          Effect.provide(clientLayer({ filename }))
        )
      const before = Fs.readFileSync(filename)
      const error = yield* openError({ filename })
      expect(error).toBeInstanceOf(StoreError.StoreError)
      expect(error.reason).toBe("Incompatible")
      expect(error.message).toContain(`version ${newer}`)
      expect(error.message).toContain(`version ${SqliteMigrations.schemaVersion}`)
      expect(Fs.readFileSync(filename).equals(before)).toBe(true)
    }))

  it.scoped("a failing migration applies nothing: no half-migrated database", () =>
    Effect.gen(function*() {
      const broken = Effect.flatMap(SqlClient.SqlClient, (sql) => sql`INSERT INTO no_such_table VALUES (1)`)
      const addColumn = Effect.flatMap(SqlClient.SqlClient, (sql) => sql`ALTER TABLE pets ADD COLUMN age INTEGER`)

      const fresh = Path.join(yield* tempFolder, "store.db")
      const fromEmpty = yield* Effect.gen(function*() {
        const error = yield* Effect.flip(SqliteMigrations.migrateTo({
          "1_create_pets": SqliteMigrations.migrations["1_create_pets"]!,
          "2_broken": broken
        }))
        return { error, tables: yield* tableNames }
      }).pipe(Effect.provide(bareClient(fresh)))
      expect(fromEmpty.error).toBeInstanceOf(StoreError.StoreError)
      expect(fromEmpty.error.message).toContain("no_such_table")
      expect(fromEmpty.tables).toEqual([])

      const current = SqliteMigrations.schemaVersion
      const currentFile = yield* tempDatabase
      const fromCurrent = yield* Effect.gen(function*() {
        const error = yield* Effect.flip(SqliteMigrations.migrateTo({
          ...SqliteMigrations.migrations,
          [`${current + 1}_add_age`]: addColumn,
          [`${current + 2}_broken`]: broken
        }))
        const columns = yield* Effect.flatMap(SqlClient.SqlClient, (sql) => sql<{ readonly name: string }>`SELECT name FROM pragma_table_info('pets')`)
        return { error, applied: yield* appliedMigrations, version: yield* pragma("user_version"), columns }
      }).pipe(Effect.provide(clientLayer({ filename: currentFile })))
      expect(fromCurrent.error.reason).toBe("Unknown")
      expect(fromCurrent.error.message).toContain(`Migration "${current + 2}_broken" failed`)
      expect(fromCurrent.applied).toEqual(allVersions)
      expect(fromCurrent.version).toBe(current)
      expect(fromCurrent.columns.map((column) => column.name)).toEqual(["id", "name", "category_id", "status"])
    }))

  it.scoped("records of a version 5 database are kept by migration 6: a retry still replays its animal", () =>
    Effect.gen(function*() {
      const filename = Path.join(yield* tempFolder, "store.db")
      const now = Date.UTC(2026, 0, 1)
      const body = { name: "Rex", categoryId: 3, status: "sold" }
      yield* Effect.gen(function*() {
        const version5 = Object.fromEntries(
          Object.entries(SqliteMigrations.migrations).filter(([id]) => Number.parseInt(id, 10) <= 5)
        )
        yield* SqliteMigrations.migrateTo(version5)
        const sql = yield* SqlClient.SqlClient
        yield* sql`INSERT INTO pets (id, name, category_id, status) VALUES (7, 'Rex', 3, 'sold')`
        yield* sql`INSERT INTO idempotency_keys
          (scope, key, fingerprint, expires_at, pet_id, pet_name, pet_category_id, pet_status)
          VALUES ('key-1', 'retry-1', ${Idempotency.fingerprint(body)}, ${now + 1000}, 7, 'Rex', 3, 'sold')`
      }).pipe(Effect.provide(bareClient(filename)))
      const outcome = yield* Effect.flatMap(IdempotencyStore.IdempotencyStore, (store) =>
        store.createPet({
          scope: "key-1",
          key: "retry-1",
          pet: { name: "Rex", categoryId: 3, status: "sold" } as Pet.NewPet,
          now,
          decide: Idempotency.decide(Idempotency.fingerprint(body), now)
        })).pipe(Effect.provide(SqliteStore.layer({ filename })))
      expect(outcome._tag).toBe("Replayed")
      expect(outcome._tag === "Replayed" ? { ...outcome.pet } : undefined).toEqual({
        id: 7,
        name: "Rex",
        categoryId: 3,
        status: "sold"
      })
    }))

  it.scoped("records of a version 6 database are found after migrations 7 and 8, each in its own scope", () =>
    Effect.gen(function*() {
      const filename = Path.join(yield* tempFolder, "store.db")
      const now = Date.UTC(2026, 0, 1)
      const rex = { name: "Rex", categoryId: 3, status: "sold" }
      const tom = { name: "Tom", categoryId: 4, status: "pending" }
      yield* Effect.gen(function*() {
        const version6 = Object.fromEntries(
          Object.entries(SqliteMigrations.migrations).filter(([id]) => Number.parseInt(id, 10) <= 6)
        )
        yield* SqliteMigrations.migrateTo(version6)
        const sql = yield* SqlClient.SqlClient
        yield* sql`INSERT INTO pets (id, name, category_id, status) VALUES (7, 'Rex', 3, 'sold'), (8, 'Tom', 4, 'pending')`
        yield* sql`INSERT INTO idempotency_keys (pet_id, scope, key, fingerprint, expires_at) VALUES
          (7, 'key-1', 'retry-1', ${Idempotency.fingerprint(rex)}, ${now + 1000}),
          (8, 'key-2', 'retry-1', ${Idempotency.fingerprint(tom)}, ${now + 1000})`
      }).pipe(Effect.provide(bareClient(filename)))
      const retry = (scope: string, body: typeof rex) =>
        Effect.flatMap(IdempotencyStore.IdempotencyStore, (store) =>
          store.createPet({
            scope,
            key: "retry-1",
            pet: body as Pet.NewPet,
            now,
            decide: Idempotency.decide(Idempotency.fingerprint(body), now)
          }))
      const [first, second, third] = yield* Effect.all([retry("key-1", rex), retry("key-2", tom), retry("key-3", rex)]).pipe(
        Effect.provide(SqliteStore.layer({ filename }))
      )
      expect(first._tag === "Replayed" ? first.pet.id : first._tag).toBe(7)
      expect(second._tag === "Replayed" ? second.pet.id : second._tag).toBe(8)
      expect(third._tag).toBe("Created")
    }))

  it.scoped("keys and counts of a version 8 database are kept by migrations 9 and 10: fixed window, no expiry, no previous minute", () =>
    Effect.gen(function*() {
      const filename = Path.join(yield* tempFolder, "store.db")
      yield* Effect.gen(function*() {
        const version8 = Object.fromEntries(
          Object.entries(SqliteMigrations.migrations).filter(([id]) => Number.parseInt(id, 10) <= 8)
        )
        yield* SqliteMigrations.migrateTo(version8)
        const sql = yield* SqlClient.SqlClient
        yield* sql`INSERT INTO api_keys (id, digest, prefix, plan, per_minute, per_day, environment, created_at, revoked_at)
          VALUES ('key_old', ${"d".repeat(64)}, 'ask_live_abcd', 'pro', 300, 10000, 'production', 1000, NULL)`
        yield* sql`INSERT INTO rate_limits (subject, minute_start, minute_count, day_start, day_count, refused_count, banned_until)
          VALUES ('key:key_old', 60000, 7, 0, 9, 1, 0)`
      }).pipe(Effect.provide(bareClient(filename)))
      const [key, state] = yield* Effect.all([
        Effect.flatMap(ApiKeyStore.ApiKeyStore, (keys) => keys.findByDigest("d".repeat(64))),
        Effect.flatMap(RateLimitStore.RateLimitStore, (limits) => limits.get("key:key_old"))
      ]).pipe(Effect.provide(SqliteStore.layer({ filename })))
      expect(Option.map(key, (key) => [key.id, key.window, key.expiresAt, key.previousSecret])).toEqual(
        Option.some(["key_old", "fixed", Option.none(), Option.none()])
      )
      expect(state).toEqual({
        minuteStart: 60000,
        minuteCount: 7,
        previousMinuteCount: 0,
        dayStart: 0,
        dayCount: 9,
        refusedCount: 1,
        bannedUntil: 0
      })
    }))

  it.scoped("each connection finds the records the others append, and its own, under one key per scope", () =>
    Effect.gen(function*() {
      const filename = Path.join(yield* tempFolder, "store.db")
      const connections = [
        yield* Layer.build(SqliteStore.layer({ filename })),
        yield* Layer.build(SqliteStore.layer({ filename })),
        yield* Layer.build(SqliteStore.layer({ filename }))
      ]
      const now = Date.UTC(2026, 0, 1)
      const create = (scope: string, key: string, name: string) => {
        const pet = { name, categoryId: 1, status: "available" } as Pet.NewPet
        return Effect.flatMap(IdempotencyStore.IdempotencyStore, (store) =>
          store.createPet({ scope, key, pet, now, decide: Idempotency.decide(Idempotency.fingerprint(pet), now) }))
      }
      const ids = new Map<string, number>()
      for (let i = 0; i < 120; i++) {
        const scope = `key-${i % 2}`
        const key = `retry-${Math.floor(i / 2) % 20}`
        const name = `${scope}/${key}`
        const outcome = yield* create(scope, key, name).pipe(Effect.provide(connections[i % 3]!))
        const known = ids.get(name)
        if (known === undefined) {
          if (outcome._tag !== "Created") return expect.fail(`${name}: expected Created, got ${outcome._tag}`)
          ids.set(name, outcome.pet.id)
        } else {
          expect(outcome).toEqual({ _tag: "Replayed", pet: expect.objectContaining({ id: known, name }) })
        }
      }
      expect(ids.size).toBe(40)
    }))

  it.scoped("a keyed create whose commit failed is read again: another connection's record under the same id is found", () =>
    Effect.gen(function*() {
      const filename = Path.join(yield* tempFolder, "store.db")
      const a = yield* Layer.build(SqliteStore.layer({ filename }))
      const b = yield* Layer.build(SqliteStore.layer({ filename }))
      const now = Date.UTC(2026, 0, 1)
      const rex = { name: "Rex", categoryId: 3, status: "sold" } as Pet.NewPet
      const create = (key: string) =>
        Effect.flatMap(IdempotencyStore.IdempotencyStore, (store) =>
          store.createPet({ scope: "s", key, pet: rex, now, decide: Idempotency.decide(Idempotency.fingerprint(rex), now) }))
      expect((yield* create("first").pipe(Effect.provide(a)))._tag).toBe("Created")
      // The file moved away while the create runs: its commit is refused, it is rolled back.
      Fs.renameSync(filename, `${filename}.moved`)
      const created = yield* Effect.exit(create("rolled-back").pipe(Effect.provide(a)))
      Fs.renameSync(`${filename}.moved`, filename)
      expect(created).toEqual(Exit.fail(expect.objectContaining({ _tag: "StoreError", message: expect.stringContaining("no longer the file") })))
      // The other connection appends a record under the id the rolled back one had.
      const fromB = yield* create("from-b").pipe(Effect.provide(b))
      if (fromB._tag !== "Created") return expect.fail(`expected Created, got ${fromB._tag}`)
      expect(fromB.pet.id).toBe(2)
      // A retry through the first connection replays it: no second animal.
      expect(yield* create("from-b").pipe(Effect.provide(a))).toEqual({ _tag: "Replayed", pet: fromB.pet })
      // The rolled back key was never stored, and both connections agree.
      expect((yield* create("rolled-back").pipe(Effect.provide(b)))._tag).toBe("Created")
      expect((yield* create("rolled-back").pipe(Effect.provide(a)))._tag).toBe("Replayed")
    }))

  it.scoped("each write is committed when its call completes, in the caller's turn; a failing write fails alone and stores nothing", () =>
    Effect.gen(function*() {
      const filename = yield* tempDatabase
      const context = yield* Layer.build(databaseLayer({ filename }))
      const other = open(filename)
      yield* Effect.addFinalizer(() => Effect.sync(() => other.close()))
      yield* Effect.gen(function*() {
        const seenByOther = () => (other.prepare("SELECT count(*) AS n FROM pets").get() as { n: number }).n
        const pets = yield* PetRepository.PetRepository
        const insert = (name: string) =>
          Effect.map(pets.insert({ ...newPet, name }), (pet) => ({ id: pet.id, seenByOther: seenByOther() }))

        const stored = yield* inOneTurn([insert("a"), insert("b"), insert("c")])
        expect(stored).toEqual([1, 2, 3].map((id) => Exit.succeed({ id, seenByOther: id })))

        const [d, nowhere, e] = yield* inOneTurn([insert("d"), writeNowhere, insert("e")])
        expect(d).toEqual(Exit.succeed({ id: 4, seenByOther: 4 }))
        expect(nowhere).toEqual(Exit.fail(expect.objectContaining({ _tag: "StoreError", message: expect.stringContaining("Writing nowhere") })))
        expect(e).toEqual(Exit.succeed({ id: 5, seenByOther: 5 }))
        expect((yield* pets.list({ limit: 10 })).map((pet) => pet.name)).toEqual(["a", "b", "c", "d", "e"])
      }).pipe(Effect.provide(context))
    }))

  it.scoped("held writes of a turn share one transaction committed after it: delivered once durable, or lost with the error that lost them", () =>
    Effect.gen(function*() {
      const filename = yield* tempDatabase
      const context = yield* Layer.build(databaseLayer({ filename }))
      const other = open(filename)
      yield* Effect.addFinalizer(() => Effect.sync(() => other.close()))
      const seenByOther = () => (other.prepare("SELECT count(*) AS n FROM pets").get() as { n: number }).n
      yield* Effect.gen(function*() {
        const pets = yield* PetRepository.PetRepository
        const database = yield* Database.Database
        const insert = (name: string) => Effect.map(pets.insert({ ...newPet, name }), (pet) => ({ id: pet.id, seenByOther: seenByOther() }))
        const refused = database.writeHeld("Writing nowhere", (statements) => statements.run("INSERT INTO no_such_table VALUES (1)"))
        let delivered: Array<string> = []
        const deliver = (what: string) => database.delivery.whenDurable((lost) => delivered.push(`${what}: ${lost?._tag ?? "durable"}`))

        // Answered before their commit, which follows the turn; the write SQLite refuses fails alone.
        const [a, nowhere, b] = yield* held(inOneTurn([insert("a"), refused, insert("b")]))
        expect([a, b]).toEqual([Exit.succeed({ id: 1, seenByOther: 0 }), Exit.succeed({ id: 2, seenByOther: 0 })])
        expect(Exit.isFailure(nowhere!)).toBe(true)
        deliver("a and b")
        expect(delivered).toEqual([])
        yield* Delivery.durable(database.delivery)
        expect(delivered).toEqual(["a and b: durable"])
        expect(seenByOther()).toBe(2)

        // A write not held commits the held ones first, then itself, before it completes.
        yield* held(insert("c"))
        expect(yield* insert("d")).toEqual({ id: 4, seenByOther: 4 })

        // Files replaced before the commit: the turn's writes are rolled back, every waiter told why.
        delivered = []
        yield* held(insert("e"))
        deliver("e")
        Fs.renameSync(filename, `${filename}-moved`)
        const lost = yield* Effect.flip(Delivery.durable(database.delivery))
        expect(lost).toEqual(expect.objectContaining({ _tag: "StoreError", reason: "Unavailable" }))
        expect(delivered).toEqual(["e: StoreError"])
        expect(seenByOther()).toBe(4)
        // Nothing waits any more: delivered at once.
        deliver("nothing")
        expect(delivered).toEqual(["e: StoreError", "nothing: durable"])
      }).pipe(Effect.provide(context))
    }))

  it.scoped("counts of one subject run in the order they came, each committed when it completes; a rule that throws is a defect of its call alone", () =>
    Effect.gen(function*() {
      const filename = yield* tempDatabase
      const context = yield* Layer.build(databaseLayer({ filename }))
      const other = open(filename)
      yield* Effect.addFinalizer(() => Effect.sync(() => other.close()))
      const stored = () => (other.prepare("SELECT minute_count AS n FROM rate_limits WHERE subject = 'key:x'").get() as { n: number }).n
      yield* Effect.gen(function*() {
        const limits = yield* RateLimitStore.RateLimitStore
        /** Counts one request of `key:x`: the count it found, and the count stored once it completed. */
        const count = Effect.map(
          limits.modify("key:x", (state) => {
            const found = state?.minuteCount ?? 0
            return [found, { minuteStart: 0, minuteCount: found + 1, dayStart: 0, dayCount: found + 1, refusedCount: 0, bannedUntil: 0, previousMinuteCount: 0 }]
          }),
          (found) => [found, stored()]
        )
        expect(yield* inOneTurn([count, count, count])).toEqual([Exit.succeed([0, 1]), Exit.succeed([1, 2]), Exit.succeed([2, 3])])
        const throwing = limits.modify("key:x", () => {
          throw new Error("a bug in the rule")
        })
        const [before, thrown, after] = yield* inOneTurn([count, throwing, count])
        expect([before, after]).toEqual([Exit.succeed([3, 4]), Exit.succeed([4, 5])])
        expect(Exit.isFailure(thrown!) && thrown.cause._tag).toBe("Die")
      }).pipe(Effect.provide(context))
    }))

  it.scoped("held counts of a turn change its copy of the row, written once before the turn commits: exact, unseen before, a throwing rule a defect alone", () =>
    Effect.gen(function*() {
      const filename = yield* tempDatabase
      const context = yield* Layer.build(databaseLayer({ filename }))
      const other = open(filename)
      yield* Effect.addFinalizer(() => Effect.sync(() => other.close()))
      const stored = () =>
        (other.prepare("SELECT minute_count AS n FROM rate_limits WHERE subject = 'key:x'").get() as { n: number } | undefined)?.n
      yield* Effect.gen(function*() {
        const limits = yield* RateLimitStore.RateLimitStore
        const database = yield* Database.Database
        const count = limits.modify("key:x", (state) => {
          const found = state?.minuteCount ?? 0
          return [found, { minuteStart: 0, minuteCount: found + 1, dayStart: 0, dayCount: found + 1, refusedCount: 0, bannedUntil: 0, previousMinuteCount: 0 }]
        })
        const throwing = limits.modify("key:x", () => {
          throw new Error("a bug in the rule")
        })
        const [a, thrown, b, c] = yield* held(inOneTurn([count, throwing, count, count]))
        expect([a, b, c]).toEqual([Exit.succeed(0), Exit.succeed(1), Exit.succeed(2)])
        expect(Exit.isFailure(thrown!) && thrown.cause._tag).toBe("Die")
        // Not written yet: another connection sees nothing until the commit.
        expect(stored()).toBeUndefined()
        yield* Delivery.durable(database.delivery)
        expect(stored()).toBe(3)

        // The next turn reads the row again; a read, held or not, commits the turn first.
        expect(yield* held(count)).toBe(3)
        expect(stored()).toBe(3)
        expect((yield* held(limits.get("key:x")))?.minuteCount).toBe(4)
        expect(stored()).toBe(4)

        // Another connection changes the row between turns: the next turn counts from it.
        other.prepare("UPDATE rate_limits SET minute_count = 10 WHERE subject = 'key:x'").run()
        expect(yield* held(count)).toBe(10)
        yield* Delivery.durable(database.delivery)
        expect(stored()).toBe(11)

        // Files replaced before the commit: the turn's counts are lost with it, the row as it was.
        yield* held(count)
        Fs.renameSync(filename, `${filename}-moved`)
        expect((yield* Effect.flip(Delivery.durable(database.delivery)))._tag).toBe("StoreError")
        expect(stored()).toBe(11)
      }).pipe(Effect.provide(context))
    }))

  it.scoped("key lookups in a held turn see a revocation another connection committed before the turn; none commits during it", () =>
    Effect.gen(function*() {
      const filename = yield* tempDatabase
      const { context, other } = yield* withKeys(filename)
      const digest = "b".repeat(64)
      yield* Effect.gen(function*() {
        const keys = yield* ApiKeyStore.ApiKeyStore
        const database = yield* Database.Database
        const count = countKey(yield* RateLimitStore.RateLimitStore, "key_kept")
        const revokedAt = Effect.map(keys.findByDigest(digest), Option.flatMap((found) => found.revokedAt))
        yield* keys.insert(freeKey("key_kept", digest))
        // Kept by a lookup; then revoked by another connection, before the next turn begins.
        expect(yield* revokedAt).toEqual(Option.none())
        other.prepare("UPDATE api_keys SET revoked_at = 5000 WHERE id = 'key_kept'").run()
        const [counted, first, second] = yield* held(inOneTurn([count, revokedAt, revokedAt]))
        expect(counted).toEqual(Exit.succeed(0))
        expect([first, second]).toEqual([Exit.succeed(Option.some(new Date(5000))), Exit.succeed(Option.some(new Date(5000)))])
        // While the turn is open it holds the write lock: no other connection commits a revocation.
        yield* held(count)
        const unrevoke = other.prepare("UPDATE api_keys SET revoked_at = NULL WHERE id = 'key_kept'")
        expect(() => unrevoke.run()).toThrow(/database is locked/)
        yield* Delivery.durable(database.delivery)
        expect((unrevoke.run() as { changes: number }).changes).toBe(1)
        expect(yield* revokedAt).toEqual(Option.none())
      }).pipe(Effect.provide(context))
    }))

  it.scoped("a held key lookup opens the turn its count writes in; a turn of lookups alone loses nothing, and while the files are gone lookups read", () =>
    Effect.gen(function*() {
      const filename = yield* tempDatabase
      const { context, other } = yield* withKeys(filename)
      const digest = "d".repeat(64)
      yield* Effect.gen(function*() {
        const keys = yield* ApiKeyStore.ApiKeyStore
        const database = yield* Database.Database
        const count = countKey(yield* RateLimitStore.RateLimitStore, "key_looked_up")
        const idOf = (digest: string) => Effect.map(keys.findByDigest(digest), Option.map((found) => found.id))
        yield* keys.insert(freeKey("key_looked_up", digest))
        const write = other.prepare("UPDATE api_keys SET plan = 'pro' WHERE id = 'key_looked_up'")

        // Not held, a lookup holds no lock; held, it opens the turn, whose write lock lasts until the commit.
        expect(yield* idOf(digest)).toEqual(Option.some("key_looked_up"))
        expect((write.run() as { changes: number }).changes).toBe(1)
        expect(yield* held(idOf(digest))).toEqual(Option.some("key_looked_up"))
        expect(() => write.run()).toThrow(/database is locked/)
        yield* Delivery.durable(database.delivery)
        expect((write.run() as { changes: number }).changes).toBe(1)

        // The files moved away: a turn of lookups alone wrote nothing, so its callers are answered.
        Fs.renameSync(filename, `${filename}-moved`)
        expect(yield* held(idOf("e".repeat(64)))).toEqual(Option.none())
        expect(yield* Effect.exit(Delivery.durable(database.delivery))).toEqual(Exit.void)
        // A count is lost at the commit, which finds the fault; lookups then read on committed data.
        yield* held(count)
        expect((yield* Effect.flip(Delivery.durable(database.delivery))).reason).toBe("Unavailable")
        expect(yield* held(idOf(digest))).toEqual(Option.some("key_looked_up"))
        expect(yield* Effect.exit(Delivery.durable(database.delivery))).toEqual(Exit.void)
      }).pipe(Effect.provide(context))
    }))

  it.scoped("rows whose windows and ban have ended are deleted by the store on its file; rows still counting or banned are kept", () =>
    Effect.gen(function*() {
      const filename = yield* tempDatabase
      const day = 86_400_000
      const write = (subject: string, dayStart: number, bannedUntil: number) =>
        Effect.flatMap(RateLimitStore.RateLimitStore, (limits) =>
          limits.modify(subject, () => [undefined, { minuteStart: dayStart, minuteCount: 1, dayStart, dayCount: 1, refusedCount: 0, bannedUntil, previousMinuteCount: 0 }]))
      const first = yield* Layer.build(SqliteStore.layer({ filename }))
      yield* Effect.provide(Effect.all([write("key:ended", 0, 0), write("key:banned", 0, 3 * day), write("key:today", 2 * day, 0)]), first)
      yield* TestClock.adjust(2 * day + 60_000)
      yield* Layer.build(SqliteStore.layer({ filename }))
      const other = open(filename)
      yield* Effect.addFinalizer(() => Effect.sync(() => other.close()))
      const subjects = (): Array<string> =>
        JSON.parse((other.prepare("SELECT json_group_array(subject) AS s FROM (SELECT subject FROM rate_limits ORDER BY subject)").get() as { s: string }).s)
      for (let turn = 0; turn < 100 && subjects().includes("key:ended"); turn++) yield* Effect.yieldNow()
      expect(subjects()).toEqual(["key:banned", "key:today"])
    }))

  it.scoped("two connections counting one subject in turn count every call: a state one wrote is read again once the other committed", () =>
    Effect.gen(function*() {
      const filename = yield* tempDatabase
      const connections = [yield* Layer.build(SqliteStore.layer({ filename })), yield* Layer.build(SqliteStore.layer({ filename }))]
      const count = Effect.flatMap(RateLimitStore.RateLimitStore, (limits) =>
        limits.modify("addr:y", (state) => {
          const found = state?.minuteCount ?? 0
          return [found, { minuteStart: 0, minuteCount: found + 1, dayStart: 0, dayCount: found + 1, refusedCount: 0, bannedUntil: 0, previousMinuteCount: 0 }]
        }))
      const order = [0, 0, 1, 0, 1, 1, 0, 0, 1, 0]
      const found: Array<number> = []
      for (const on of order) found.push(yield* Effect.provide(count, connections[on]!))
      expect(found).toEqual(order.map((_, i) => i))
    }))

  it.scoped("a path that cannot be opened is Unavailable", () =>
    Effect.gen(function*() {
      const folder = yield* tempFolder
      const directory = yield* openError({ filename: folder })
      expect(directory.reason).toBe("Unavailable")
      expect(directory.message).toContain(folder)

      const file = Path.join(folder, "plain-file")
      Fs.writeFileSync(file, "not a folder")
      const underFile = yield* openError({ filename: Path.join(file, "store.db") })
      expect(underFile.reason).toBe("Unavailable")
      expect(underFile.message).toContain("is not a folder")

      // A folder the system refuses to create (Node's recursive mkdir loops forever here).
      const refused = yield* openError({ filename: "/proc/animal-store-test/data/store.db" })
      expect(refused.reason).toBe("Unavailable")
      expect(refused.message).toContain("/proc/animal-store-test")
    }))

  it.scoped("a file that is not a SQLite database is Corrupt and left unchanged", () =>
    Effect.gen(function*() {
      const folder = yield* tempFolder
      const files = {
        random: Buffer.from(Array.from({ length: 8192 }, (_, i) => (i * 7919 + 13) % 256)),
        text: Buffer.from("name,status\nRex,available\n".repeat(200))
      }
      for (const [name, bytes] of Object.entries(files)) {
        const filename = Path.join(folder, `${name}.db`)
        Fs.writeFileSync(filename, bytes)
        const error = yield* openError({ filename })
        expect(error.reason).toBe("Corrupt")
        expect(error.message).toContain(filename)
        expect(Fs.readFileSync(filename).equals(bytes)).toBe(true)
      }
    }))

  it.scoped("a database damaged after it was written is Corrupt on the operations that read the damage", () =>
    Effect.gen(function*() {
      const filename = yield* tempDatabase
      const { pageSize, rootPage } = yield* Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        yield* sql`INSERT INTO pets (name, category_id, status)
          WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 2000)
          SELECT 'pet ' || i, 1, 'sold' FROM n`
        const [root] = yield* sql<{ readonly rootpage: number }>`SELECT rootpage FROM sqlite_schema WHERE name = 'pets'`
        return { pageSize: Number(yield* pragma("page_size")), rootPage: root!.rootpage }
      }).pipe(Effect.provide(clientLayer({ filename })))
      const fd = Fs.openSync(filename, "r+")
      Fs.writeSync(fd, Buffer.alloc(pageSize, 0xee), 0, pageSize, (rootPage - 1) * pageSize)
      Fs.closeSync(fd)

      const exit = yield* Effect.flatMap(PetRepository.PetRepository, (pets) => pets.list({ limit: 10 })).pipe(
        Effect.provide(SqliteStore.layer({ filename })),
        Effect.exit
      )
      expect(exit).toEqual(Exit.fail(expect.objectContaining({ _tag: "StoreError", reason: "Corrupt" })))
    }))

  it.scoped("a read-only file is ReadOnly, and left unchanged", () =>
    Effect.gen(function*() {
      const filename = yield* tempDatabase
      yield* Effect.flatMap(PetRepository.PetRepository, (pets) => pets.insert(newPet)).pipe(
        Effect.provide(SqliteStore.layer({ filename }))
      )
      // root may write any file it may not: an immutable one it may not (no other user, so nothing to read the checkout as).
      if (process.getuid?.() === 0) {
        ChildProcess.execFileSync("chattr", ["+i", filename], { stdio: "pipe" })
        yield* Effect.addFinalizer(() => Effect.sync(() => ChildProcess.execFileSync("chattr", ["-i", filename], { stdio: "pipe" })))
      } else {
        Fs.chmodSync(filename, 0o444)
      }
      const before = Fs.readFileSync(filename)
      const error = yield* openError({ filename })
      expect(error).toEqual(expect.objectContaining({ reason: "ReadOnly", message: expect.stringContaining("read-only") }))
      expect(Fs.readFileSync(filename).equals(before)).toBe(true)
    }))

  it.scopedLive("a store opens while another connection holds a write lock on the new file (SQLite refuses the switch to WAL at once)", () =>
    Effect.gen(function*() {
      const filename = Path.join(yield* tempFolder, "store.db")
      const other = open(filename)
      other.prepare("CREATE TABLE other (x)").run()
      other.prepare("BEGIN IMMEDIATE").run()
      // SQLite answers SQLITE_BUSY without waiting here; the lock goes 100 ms later.
      const release = setTimeout(() => {
        other.prepare("COMMIT").run()
        other.close()
      }, 100)
      const opened = yield* Effect.exit(Layer.build(SqliteStore.layer({ filename })).pipe(Effect.scoped))
      clearTimeout(release)
      expect(opened._tag).toBe("Success")
    }))

  it.scoped("a write waits for another process's lock up to the busy timeout, then fails as Unavailable", () =>
    Effect.gen(function*() {
      const filename = yield* tempDatabase
      yield* Layer.build(SqliteStore.layer({ filename })).pipe(Effect.scoped)
      const count = (busyTimeout: number) =>
        Effect.flatMap(RateLimitStore.RateLimitStore, (store) =>
          store.modify("key:busy", countCall)).pipe(Effect.provide(SqliteStore.layer({ filename, busyTimeout })), Effect.exit)
      const { gaveUp, waitedFor } = yield* Effect.promise(async () => {
        const child = spawnFixture("holdWriteLock.ts", [filename, "600", "5000"])
        const stderr = collectStderr(child)
        const lines = linesOf(child)
        const whileLocked = async (busyTimeout: number) => {
          const line = await lines.next()
          if (line.value !== "locked") throw new Error(`holdWriteLock.ts did not lock: ${stderr.text()}`)
          const start = Date.now()
          const result = await Effect.runPromise(count(busyTimeout))
          return { result, waited: Date.now() - start }
        }
        try {
          const waitedFor = await whileLocked(10_000)
          expect((await lines.next()).value).toBe("released")
          child.stdin.write("next\n")
          return { waitedFor, gaveUp: await whileLocked(100) }
        } finally {
          child.kill("SIGKILL")
          await exitOf(child)
        }
      })
      expect(waitedFor.result).toEqual(Exit.succeed(1))
      expect(waitedFor.waited).toBeGreaterThanOrEqual(300)
      expect(gaveUp.result).toEqual(Exit.fail(expect.objectContaining({
        _tag: "StoreError",
        reason: "Unavailable",
        message: expect.stringContaining("busy timeout")
      })))
      expect(gaveUp.waited).toBeLessThan(4_000)
    }))

  it.scoped("the waits for another process's lock are in the lock-wait histogram, calls never refused are not", () =>
    Effect.gen(function*() {
      const filename = yield* tempDatabase
      const histogram = () => {
        const found = Metric.unsafeSnapshot().find(({ metricKey }) => metricKey.name === SqliteStore.lockWaitsMetric)
        const state = found?.metricState
        return state !== undefined && MetricState.isHistogramState(state)
          ? { count: state.count, sum: state.sum, within100ms: state.buckets.find(([le]) => le === 0.1)?.[1] ?? 0 }
          : { count: 0, sum: 0, within100ms: 0 }
      }
      const store = Context.get(yield* Layer.build(SqliteStore.layer({ filename })), RateLimitStore.RateLimitStore)
      const before = histogram()
      expect(yield* store.modify("key:waits", countCall)).toBe(1)
      expect(histogram()).toEqual(before)
      const child = spawnFixture("holdWriteLock.ts", [filename, "400"])
      yield* Effect.addFinalizer(() => Effect.promise(() => (child.kill("SIGKILL"), exitOf(child))))
      const stderr = collectStderr(child)
      const line = yield* Effect.promise(() => linesOf(child).next())
      if (line.value !== "locked") throw new Error(`holdWriteLock.ts did not lock: ${stderr.text()}`)
      expect(yield* store.modify("key:waits", countCall)).toBe(2)
      const after = histogram()
      expect(after.count - before.count).toBe(1)
      expect(after.sum - before.sum).toBeGreaterThan(0.2)
      expect(after.within100ms - before.within100ms).toBe(0)
    }))

  it.scoped("layerConfig reads its options from configuration", () =>
    Effect.gen(function*() {
      const filename = yield* tempDatabase
      const layer = SqliteStore.layerConfig({
        filename: Config.string("STORE_FILE"),
        synchronous: Config.literal("NORMAL", "FULL")("STORE_SYNCHRONOUS")
      })
      const withConfig = (entries: ReadonlyArray<readonly [string, string]>) =>
        Layer.setConfigProvider(ConfigProvider.fromMap(new Map(entries)))
      const pet = yield* Effect.flatMap(PetRepository.PetRepository, (pets) => pets.insert(newPet)).pipe(
        Effect.provide(Layer.provide(layer, withConfig([["STORE_FILE", filename], ["STORE_SYNCHRONOUS", "FULL"]])))
      )
      expect(pet.name).toBe("Rex")
      expect(Fs.existsSync(filename)).toBe(true)
      const missing = yield* Layer.build(Layer.provide(layer, withConfig([]))).pipe(Effect.scoped, Effect.flip)
      expect(ConfigError.isConfigError(missing)).toBe(true)
    }))

  it.scoped("a port call waits for another fiber's SqlClient transaction to end, and is not part of it", () =>
    Effect.gen(function*() {
      const other = yield* SqliteClient.make({ filename: ":memory:" }).pipe(Effect.provide(Reactivity.layer))
      const alone = <A, E>(call: Effect.Effect<A, E>): Effect.Effect<A, E | SqlError> => call
      // Inside a transaction of another SqlClient, the call must still wait.
      for (const around of [alone, other.withTransaction]) {
        const filename = yield* tempDatabase
        yield* Effect.gen(function*() {
          const sql = yield* SqlClient.SqlClient
          const pets = yield* PetRepository.PetRepository
          const opened = yield* Deferred.make<void>()
          const release = yield* Deferred.make<void>()
          const holder = yield* sql.withTransaction(Effect.gen(function*() {
            yield* sql`INSERT INTO pets (name, category_id, status) VALUES ('held', 1, 'sold')`
            yield* Deferred.succeed(opened, undefined)
            yield* Deferred.await(release)
            return yield* Effect.fail("rolled back")
          })).pipe(Effect.flip, Effect.fork)
          yield* Deferred.await(opened)
          const insert = yield* Effect.fork(around(pets.insert(newPet)))
          yield* Effect.repeatN(Effect.yieldNow(), 20)
          expect(Option.isNone(yield* Fiber.poll(insert))).toBe(true)
          yield* Deferred.succeed(release, undefined)
          expect(yield* Fiber.join(holder)).toBe("rolled back")
          const pet = yield* Fiber.join(insert)
          expect(yield* pets.list({ limit: 10 })).toEqual([pet])
        }).pipe(Effect.provide(storeLayer({ filename })))
      }
    }))

  it.scoped("port calls inside a SqlClient transaction run in it", () =>
    Effect.gen(function*() {
      const filename = yield* tempDatabase
      yield* Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const pets = yield* PetRepository.PetRepository
        const limits = yield* RateLimitStore.RateLimitStore
        const state = { minuteStart: 0, minuteCount: 1, dayStart: 0, dayCount: 1, refusedCount: 0, bannedUntil: 0, previousMinuteCount: 0 }
        const inside = Effect.andThen(
          pets.insert(newPet),
          limits.modify("key:inside", (before) => [before, state])
        )
        expect(yield* sql.withTransaction(Effect.zipRight(inside, Effect.fail("undo"))).pipe(Effect.flip)).toBe("undo")
        expect(yield* pets.list({ limit: 10 })).toEqual([])
        expect(yield* limits.modify("key:inside", (before) => [before, state])).toBeUndefined()
        expect(yield* sql.withTransaction(inside)).toEqual(state)
        expect((yield* pets.list({ limit: 10 })).length).toBe(1)
      }).pipe(Effect.provide(storeLayer({ filename })))
    }))

  it("a listing's limit is written into its statement up to the largest page, bound beyond, never anything but a row count", () => {
    expect(listStatement(undefined, 7, 21)).toEqual([expect.stringMatching(/ id > \? ORDER BY id LIMIT 21$/), 7])
    expect(listStatement("sold", 7, 101)).toEqual([expect.stringMatching(/ LIMIT 101$/), "sold", 7])
    expect(listStatement("sold", 7, 102)).toEqual([expect.stringMatching(/ LIMIT \?$/), "sold", 7, 102])
    for (const limit of [1.5, -1, Number.NaN, Infinity]) {
      expect(() => listStatement(undefined, 0, limit)).toThrow(RangeError)
      expect(() => listStatement("sold", 0, limit)).toThrow(RangeError)
    }
  })

  it.effect("a listing of more than the largest page binds its limit and lists as many", () =>
    Effect.gen(function*() {
      const pets = yield* PetRepository.PetRepository
      for (let i = 0; i < 105; i++) {
        yield* pets.insert({ name: `pet ${i}`, categoryId: Pet.CategoryId.make(1), status: i % 2 === 0 ? "sold" : "pending" })
      }
      expect((yield* pets.list({ limit: 104 })).map((pet) => pet.id)).toEqual(Array.from({ length: 104 }, (_, i) => i + 1))
      expect((yield* pets.list({ limit: 500, afterId: Pet.PetId.make(100) })).length).toBe(5)
      expect((yield* pets.list({ limit: 102, status: "sold" })).length).toBe(53)
      expect((yield* pets.list({ limit: 101, status: "sold", afterId: Pet.PetId.make(1) })).length).toBe(52)
    }).pipe(Effect.provide(storeLayer({ filename: ":memory:" }))))

  it.scoped("a listing after a cursor is one range search: of the (status, id) index by status, else of the key", () =>
    Effect.gen(function*() {
      const plan = (sql: string, ...params: ReadonlyArray<string | number>) =>
        Effect.flatMap(SqlClient.SqlClient, (client) =>
          client.unsafe<{ readonly detail: string }>(`EXPLAIN QUERY PLAN ${sql}`, params)).pipe(
            Effect.map((rows) => rows.map((row) => row.detail))
          )
      const plans = yield* Effect.all([plan(...listStatement("sold", 10, 20)), plan(...listStatement(undefined, 10, 20))]).pipe(
        Effect.provide(clientLayer({ filename: ":memory:" }))
      )
      expect(plans).toEqual([
        ["SEARCH pets USING INDEX pets_status_id (status=? AND id>?)"],
        ["SEARCH pets USING INTEGER PRIMARY KEY (rowid>?)"]
      ])
    }))
})
