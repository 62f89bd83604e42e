/**
 * `IdempotencyStore` on SQLite: a keyed create is one `BEGIN IMMEDIATE` transaction (read the record,
 * run the rule, purge a few expired records, insert the animal and its record), so processes sharing
 * the file serialize on it and the rule's `InUse` never happens. Records are appended in expiry order;
 * keys are found through an index in memory (`keyIndex.ts`; record 0005).
 *
 * @internal
 */
import type { StoreError } from "@animal-store/core"
import { IdempotencyStore } from "@animal-store/core"
import { SqlRow, SqlStore } from "@animal-store/sql-store"
import { Clock, Effect, Layer } from "effect"
import type { Statements } from "./database.js"
import { Database } from "./database.js"
import * as KeyIndex from "./keyIndex.js"
import { insertPet } from "./petSql.js"
import { isPetRow, toPet } from "./rows.js"

/** A record's scope, key, fingerprint and expiry (then its pet's columns). */
const isRecordRow = SqlRow.tuple(SqlRow.isString, SqlRow.isString, SqlRow.isString, SqlRow.isNumber)

type AppendedRow = readonly [petId: number, scope: string, key: string, expiresAt: number]
const isAppendedRow: SqlRow.Guard<AppendedRow> = SqlRow.tuple(SqlRow.isNumber, SqlRow.isString, SqlRow.isString, SqlRow.isNumber)

/** A row of the table's head: a pet's id and its record's expiry. */
const isHeadRow = SqlRow.tuple(SqlRow.isNumber, SqlRow.isNumber)

const selectSql = `SELECT r.scope, r.key, r.fingerprint, r.expires_at, p.id, p.name, p.category_id, p.status
  FROM idempotency_keys AS r JOIN pets AS p ON p.id = r.pet_id WHERE r.pet_id = ?`
const insertRecordSql = `INSERT INTO idempotency_keys (pet_id, scope, key, fingerprint, expires_at) VALUES (?, ?, ?, ?, ?)`
// The records appended since a given one, in the order they were appended.
const appendedSql = `SELECT pet_id, scope, key, expires_at FROM idempotency_keys WHERE pet_id > ? ORDER BY pet_id`
// The head of the table, in creation (so expiry) order: one more row than may be deleted.
const headSql = `SELECT pet_id, expires_at FROM idempotency_keys ORDER BY pet_id LIMIT ?`
const deleteSql = `DELETE FROM idempotency_keys WHERE pet_id = ?`

/** How many expired keys a creating call forgets at most. */
const forgetPerCreate = 4

/**
 * The records this process has read into its index. `committed` is the last
 * record read in a transaction that committed; `reading` the last one the
 * open transaction has seen, caught up at its start (no other connection
 * appends while it holds the write lock) and set back to `committed` when
 * it rolls back, as another process may then append other records under
 * the same ids.
 */
const makeKeys = () => {
  const index = KeyIndex.make()
  let committed = 0
  let reading = 0
  const add = (rows: ReadonlyArray<AppendedRow>, now: number) => {
    for (const [petId, scope, key, expiresAt] of rows) {
      if (expiresAt > now) index.add(scope, key, petId, expiresAt)
      reading = petId
    }
  }
  return {
    /** Reads every live record of the file: when the store opens. */
    load: (statements: Statements, now: number): void => {
      add(statements.values(isAppendedRow, appendedSql, reading), now)
      committed = reading
    },
    /** Reads the records appended since the last one read (inside the write transaction). */
    catchUp: (statements: Statements, now: number): void => add(statements.values(isAppendedRow, appendedSql, reading), now),
    /** Adds the record this transaction just appended. */
    appended: (scope: string, key: string, petId: number, expiresAt: number): void => {
      index.add(scope, key, petId, expiresAt)
      reading = petId
    },
    /** The end of the transaction the call ran in. */
    end: (wasCommitted: boolean): void => {
      if (wasCommitted) committed = reading
      else reading = committed
    },
    find: index.find,
    forgetExpired: index.forgetExpired
  }
}

/**
 * Purging from the head of the table. `earliestExpiry` is what this process
 * knows of the head's expiry, a lower bound (0: unknown): until then nothing
 * has expired, and a creating call does not read the head.
 */
const makePurger = () => {
  let earliestExpiry = 0
  const purge = (statements: Statements, now: number, limit: number): number => {
    const head = statements.values(isHeadRow, headSql, limit + 1)
    let purged = 0
    while (purged < limit && purged < head.length && head[purged]![1] <= now) {
      statements.run(deleteSql, head[purged]![0])
      purged++
    }
    // What is left at the head: nothing, more expired records than `limit` allowed, or the earliest live one.
    const next = head[purged]
    earliestExpiry = next === undefined ? Infinity : next[1] <= now ? 0 : next[1]
    return purged
  }
  return {
    purge,
    /** As `purge`, skipped while nothing can have expired. */
    purgeSome: (statements: Statements, now: number, limit: number): number =>
      now < earliestExpiry ? 0 : purge(statements, now, limit),
    appended: (expiresAt: number): void => {
      earliestExpiry = Math.min(earliestExpiry, expiresAt)
    },
    end: (wasCommitted: boolean): void => {
      if (!wasCommitted) earliestExpiry = 0
    }
  }
}

/** @internal */
export const make: Effect.Effect<IdempotencyStore.IdempotencyStoreService, StoreError.StoreError, Database> = Effect.gen(
  function*() {
    const database = yield* Database
    const purger = makePurger()
    const keys = makeKeys()
    const now = yield* Clock.currentTimeMillis
    yield* database.read("Reading the idempotency keys", (statements) => keys.load(statements, now))
    const end = (committed: boolean) => {
      keys.end(committed)
      purger.end(committed)
    }
    /** The record of `(scope, key)`: the row of a candidate of the index that is of that scope and key. */
    const recordOf = (statements: Statements, scope: string, key: string) => {
      let found: { readonly petId: number; readonly record: IdempotencyStore.IdempotencyRecord } | undefined
      keys.find(scope, key, (petId) => {
        const row = statements.values(isRecordRow, selectSql, petId)[0]
        if (row === undefined || row[0] !== scope || row[1] !== key) return undefined
        const petRow = row.slice(4)
        if (!isPetRow(petRow)) throw SqlRow.unexpectedRow(selectSql)
        found = { petId, record: { _tag: "Completed", fingerprint: row[2], expiresAt: row[3], pet: toPet(petRow) } }
        return found
      })
      return found
    }
    return {
      createPet: ({ decide, key, now, pet, scope }) =>
        database.write("Creating an animal under an idempotency key", (statements) => {
          keys.catchUp(statements, now)
          const found = recordOf(statements, scope, key)
          const decision = decide(found?.record)
          if (decision._tag !== "Create") return decision
          // An expired record of this key, not yet purged, gives way to the new one.
          if (found !== undefined) statements.run(deleteSql, found.petId)
          purger.purgeSome(statements, now, SqlStore.purgePerCreate)
          keys.forgetExpired(now, forgetPerCreate)
          const created = insertPet(statements, pet)
          statements.run(insertRecordSql, created.id, scope, key, decision.fingerprint, decision.expiresAt)
          purger.appended(decision.expiresAt)
          keys.appended(scope, key, created.id, decision.expiresAt)
          return { _tag: "Created", pet: created } as IdempotencyStore.IdempotentCreateOutcome
        }, end),
      purge: (now, limit) =>
        database.write(
          "Purging expired idempotency keys",
          (statements) => purger.purge(statements, now, Math.max(0, Math.trunc(limit))),
          end
        )
    }
  }
)

/** @internal */
export const layer: Layer.Layer<IdempotencyStore.IdempotencyStore, StoreError.StoreError, Database> = Layer.effect(
  IdempotencyStore.IdempotencyStore,
  make
)
