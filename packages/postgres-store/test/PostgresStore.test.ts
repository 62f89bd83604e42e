import { Pet, PetRepository, RateLimitStore, StoreError } from "@animal-store/core"
import { countCall } from "@animal-store/core/test"
import { describe, expect, it } from "@effect/vitest"
import * as SqlClient from "@effect/sql/SqlClient"
import { Effect, Exit, Layer } from "effect"
import Pg from "pg"
import { PostgresDatabase, PostgresMigrations, PostgresStore, PostgresUrl } from "../src/index.js"
import { freshSchema, useCluster } from "./support/fresh.js"

const cluster = useCluster()

const storeLayer = (schema: string, options: Partial<PostgresStore.Options> = {}) =>
  Layer.fresh(PostgresStore.layer({ url: cluster().url, schema, maxConnections: 4, ...options }))

const newPet = (name: string) =>
  ({ name, categoryId: Pet.CategoryId.make(1), status: "available" }) as const

const storeErrorOf = <A, E>(exit: Exit.Exit<A, E>): StoreError.StoreError => {
  if (Exit.isSuccess(exit)) throw new Error("expected a failure")
  const failure = exit.cause._tag === "Fail" ? exit.cause.error : undefined
  if (!(failure instanceof StoreError.StoreError)) throw new Error(`expected a StoreError, got ${String(exit.cause)}`)
  return failure
}

describe("PostgresStore", () => {
  it.effect("stores on a pool of its own, and keeps the animals when opened again", () =>
    Effect.gen(function*() {
      const schema = freshSchema()
      const stored = yield* Effect.flatMap(PetRepository.PetRepository, (pets) =>
        Effect.forEach(["Rex", "nul\u0000name", "école 🐾"], (name) => pets.insert(newPet(name)))).pipe(
          Effect.provide(storeLayer(schema))
        )
      const again = yield* Effect.flatMap(PetRepository.PetRepository, (pets) =>
        Effect.zip(pets.list({ limit: 10 }), pets.insert(newPet("Later")))).pipe(Effect.provide(storeLayer(schema)))
      expect(again[0]).toEqual(stored)
      expect(again[1].id).toBeGreaterThan(Math.max(...stored.map((pet) => pet.id)))
      const rows = yield* Effect.promise(() => cluster().query<{ name: string }>(`SELECT name FROM ${schema}.pets ORDER BY id`))
      expect(rows.map((row) => row.name)).toEqual(["Rex", "nul\ufffdname", "école 🐾", "Later"])
    }))

  it.effect("processes opening one database at once migrate it once", () =>
    Effect.gen(function*() {
      const schema = freshSchema()
      const opened = yield* Effect.all(
        Array.from({ length: 6 }, () =>
          Effect.flatMap(PetRepository.PetRepository, (pets) => pets.list({ limit: 1 })).pipe(
            Effect.provide(storeLayer(schema, { maxConnections: 1 }))
          )),
        { concurrency: "unbounded" }
      )
      expect(opened).toEqual(Array.from({ length: 6 }, () => []))
      const rows = yield* Effect.promise(() =>
        cluster().query<{ migration_id: number }>(`SELECT migration_id FROM ${schema}.effect_sql_migrations ORDER BY 1`)
      )
      expect(rows.map((row) => row.migration_id)).toEqual([1, 2, 3, 4, 5, 6, 7])
      expect(PostgresMigrations.schemaVersion).toBe(7)
    }))

  it.effect("refuses a database newer than the code, and upgrades an older one", () =>
    Effect.gen(function*() {
      const schema = freshSchema()
      const client = PostgresStore.layerClient({ url: cluster().url })
      const migrateWith = (record: typeof PostgresMigrations.migrations) =>
        Effect.flatMap(
          PostgresDatabase.PostgresDatabase,
          () => PostgresMigrations.migrateTo(record)
        ).pipe(
          Effect.provide(Layer.provide(PostgresDatabase.layer(schema), client)),
          Effect.exit
        )
      const {
        "4_create_idempotency_keys": _4,
        "5_create_store_secrets": _5,
        "6_rate_limits_previous_minute": _6,
        "7_api_keys_expiry_window_rotation": _7,
        ...older
      } = PostgresMigrations.migrations
      expect(yield* migrateWith(older)).toEqual(
        Exit.succeed([[1, "create_pets"], [2, "create_api_keys"], [3, "create_rate_limits"]])
      )
      // A version 3 database's rows: a key, a subject's counters and a row of NULL counters (no state yet).
      yield* Effect.promise(() =>
        cluster().query(`INSERT INTO ${schema}.api_keys (id, digest, prefix, plan, per_minute, per_day, environment, created_at)
          VALUES ('key_old', '${"d".repeat(64)}', 'ask_live_abcd', 'pro', 300, 10000, 'production', 1000)`)
      )
      yield* Effect.promise(() =>
        cluster().query(`INSERT INTO ${schema}.rate_limits VALUES ('key:key_old', 60000, 7, 0, 9, 1, 0), ('key:new', NULL, NULL, NULL, NULL, NULL, NULL)`)
      )
      expect(yield* migrateWith(PostgresMigrations.migrations)).toEqual(Exit.succeed([
        [4, "create_idempotency_keys"],
        [5, "create_store_secrets"],
        [6, "rate_limits_previous_minute"],
        [7, "api_keys_expiry_window_rotation"]
      ]))
      const counters = yield* Effect.promise(() =>
        cluster().query<{ subject: string; previous_minute_count: string | null }>(
          `SELECT subject, previous_minute_count FROM ${schema}.rate_limits ORDER BY subject`
        )
      )
      expect(counters).toEqual([
        { subject: "key:key_old", previous_minute_count: "0" },
        { subject: "key:new", previous_minute_count: null }
      ])
      const keys = yield* Effect.promise(() =>
        cluster().query(`SELECT minute_window, expires_at, previous_digest FROM ${schema}.api_keys`)
      )
      expect(keys).toEqual([{ minute_window: "fixed", expires_at: null, previous_digest: null }])
      const refused = storeErrorOf(yield* migrateWith(older))
      expect(refused.reason).toBe("Incompatible")
      expect(refused.message).toMatch(/schema is version 7, newer than version 3/)
      // The store's own opening (the whole record) accepts it as it is.
      const opened = yield* Effect.exit(
        Layer.build(Layer.provide(PostgresStore.layerOnClient({ schema }), client)).pipe(Effect.scoped)
      )
      expect(Exit.isSuccess(opened)).toBe(true)
    }))

  it.effect("a database that cannot be reached is Unavailable, and the message hides the password", () =>
    Effect.gen(function*() {
      const url = cluster().urlOf("postgres").replace(`:${cluster().port}/`, ":1/")
      const exit = yield* Effect.exit(Layer.build(PostgresStore.layer({ url, connectTimeout: "2 seconds" })).pipe(Effect.scoped))
      const error = storeErrorOf(exit)
      expect(error.reason).toBe("Unavailable")
      expect(error.message).toMatch(/^Connecting to the PostgreSQL database postgres:\/\/postgres:\*\*\*@127\.0\.0\.1:1\/postgres/)
      expect(error.message).not.toContain(cluster().password)
      const wrongPassword = storeErrorOf(
        yield* Effect.exit(
          Layer.build(PostgresStore.layer({ url: cluster().url.replace(cluster().password, "wrong-pw") })).pipe(Effect.scoped)
        )
      )
      expect(wrongPassword.reason).toBe("Unavailable")
      expect(wrongPassword.message).toMatch(/password authentication failed/)
      expect(wrongPassword.message).not.toContain("wrong-pw")
    }))

  it.effect("a statement held up longer than the statement timeout is Unavailable", () =>
    Effect.gen(function*() {
      const schema = freshSchema()
      const layer = storeLayer(schema, { statementTimeout: "300 millis" })
      yield* Effect.flatMap(RateLimitStore.RateLimitStore, (store) => store.modify("key:held", countCall)).pipe(
        Effect.provide(layer)
      )
      const holder = new Pg.Client({ connectionString: cluster().url })
      yield* Effect.acquireRelease(Effect.promise(() => holder.connect()), () => Effect.promise(() => holder.end()))
      yield* Effect.promise(() => holder.query(`BEGIN; SELECT * FROM ${schema}.rate_limits WHERE subject = 'key:held' FOR UPDATE`))
      const started = Date.now()
      const error = storeErrorOf(
        yield* Effect.exit(
          Effect.flatMap(RateLimitStore.RateLimitStore, (store) => store.modify("key:held", countCall)).pipe(
            Effect.provide(layer)
          )
        )
      )
      expect(error.reason).toBe("Unavailable")
      expect(error.message).toMatch(/statement timeout/)
      expect(Date.now() - started).toBeLessThan(5_000)
      yield* Effect.promise(() => holder.query("ROLLBACK"))
      const count = yield* Effect.flatMap(RateLimitStore.RateLimitStore, (store) => store.modify("key:held", countCall)).pipe(
        Effect.provide(layer)
      )
      expect(count).toBe(2) // the timed out call was rolled back, and its connection is usable again
    }).pipe(Effect.scoped))

  it.effect("refuses a schema name that would need quoting", () =>
    Effect.gen(function*() {
      const error = storeErrorOf(
        yield* Effect.exit(Layer.build(PostgresStore.layer({ url: cluster().url, schema: "Bad-Name" })).pipe(Effect.scoped))
      )
      expect(error.message).toMatch(/Invalid schema name "Bad-Name"/)
      expect(PostgresDatabase.isSchemaName("animal_store")).toBe(true)
      expect(PostgresUrl.redact("postgres://u:p%40ss@h:5/db?password=x&sslmode=require")).toBe(
        "postgres://u:***@h:5/db?password=***&sslmode=require"
      )
    }))
})

describe("PostgresStore's statements", () => {
  const onOwnPool = (schema: string, maxConnections: number) => {
    const client = PostgresStore.layerClient({ url: cluster().url, maxConnections })
    return Layer.fresh(Layer.merge(Layer.provide(PostgresStore.layerOnClient({ schema }), client), client))
  }

  it.effect("on the store's own pool, a listing is a statement prepared once in its connection", () =>
    Effect.gen(function*() {
      const schema = freshSchema()
      const prepared = yield* Effect.gen(function*() {
        const pets = yield* PetRepository.PetRepository
        yield* pets.insert(newPet("Rex"))
        for (let i = 0; i < 3; i++) expect((yield* pets.list({ limit: 10, status: "available" })).map((pet) => pet.name)).toEqual(["Rex"])
        const sql = yield* SqlClient.SqlClient
        return yield* sql.unsafe<{ readonly statement: string }>("SELECT statement FROM pg_prepared_statements")
      }).pipe(Effect.provide(onOwnPool(schema, 1)))
      expect(prepared.filter((row) => row.statement.includes(`"${schema}"."pets" WHERE status = $1`))).toHaveLength(1)
    }))

  it.effect("within a transaction of the store's client, the ports run on the transaction's connection", () =>
    Effect.gen(function*() {
      const schema = freshSchema()
      const [inside, after] = yield* Effect.gen(function*() {
        const pets = yield* PetRepository.PetRepository
        const sql = yield* SqlClient.SqlClient
        let seen: ReadonlyArray<string> = []
        const rolledBack = yield* sql.withTransaction(Effect.gen(function*() {
          yield* pets.insert(newPet("Uncommitted"))
          seen = (yield* pets.list({ limit: 10 })).map((pet) => pet.name)
          return yield* Effect.fail("roll back" as const)
        })).pipe(Effect.flip)
        expect(rolledBack).toBe("roll back")
        return [seen, (yield* pets.list({ limit: 10 })).map((pet) => pet.name)] as const
      }).pipe(Effect.provide(onOwnPool(schema, 2)))
      expect(inside).toEqual(["Uncommitted"])
      expect(after).toEqual([])
    }))
})
