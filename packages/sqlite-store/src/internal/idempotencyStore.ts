/**
 * `IdempotencyStore` on SQLite: a keyed create is one write (read the record, run the rule, purge a few
 * expired records, insert the animal and its record) under the write lock, so processes sharing the
 * file serialize on it and the rule's `InUse` never happens. Records are appended in expiry order
 * and found through the file's index of keys (record 0005).
 *
 * @internal
 */
import type { StoreError } from "@animal-store/core"
import { IdempotencyStore } from "@animal-store/core"
import { SqlRow, SqlStore } from "@animal-store/sql-store"
import { Effect, Layer } from "effect"
import type { Statements } from "./database.js"
import { Database } from "./database.js"
import { insertPet } from "./petSql.js"
import { isPetRow, toPet } from "./rows.js"

/** A record's animal id, fingerprint and expiry (then its pet's columns). */
const isRecordRow = SqlRow.tuple(SqlRow.isNumber, SqlRow.isString, SqlRow.isNumber)

/** A row of the table's head: a pet's id and its record's expiry. */
const isHeadRow = SqlRow.tuple(SqlRow.isNumber, SqlRow.isNumber)

const selectSql = `SELECT r.pet_id, r.fingerprint, r.expires_at, p.id, p.name, p.category_id, p.status
  FROM idempotency_keys AS r JOIN pets AS p ON p.id = r.pet_id WHERE r.key = ? AND r.scope = ?`
const insertRecordSql = `INSERT INTO idempotency_keys (pet_id, scope, key, fingerprint, expires_at) VALUES (?, ?, ?, ?, ?)`
// The head of the table, in creation (so expiry) order: one more row than may be deleted.
const headSql = `SELECT pet_id, expires_at FROM idempotency_keys ORDER BY pet_id LIMIT ?`
const deleteSql = `DELETE FROM idempotency_keys WHERE pet_id = ?`

/**
 * Purging from the head of the table. `earliestExpiry` is what this process
 * knows of the head's expiry (0: unknown): until then nothing has expired, and
 * a creating call does not read the head. A purge rolled back only delays the
 * next (an expired record is never replayed).
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
    }
  }
}

/** @internal */
export const make: Effect.Effect<IdempotencyStore.IdempotencyStoreService, StoreError.StoreError, Database> = Effect.gen(
  function*() {
    const database = yield* Database
    const purger = makePurger()
    /** The record of `(scope, key)`, if any. */
    const recordOf = (statements: Statements, scope: string, key: string) => {
      const row = statements.values(isRecordRow, selectSql, key, scope)[0]
      if (row === undefined) return undefined
      const petRow = row.slice(3)
      if (!isPetRow(petRow)) throw SqlRow.unexpectedRow(selectSql)
      const record: IdempotencyStore.IdempotencyRecord = { _tag: "Completed", fingerprint: row[1], expiresAt: row[2], pet: toPet(petRow) }
      return { petId: row[0], record }
    }
    return {
      createPet: ({ decide, key, now, pet, scope }) =>
        database.writeHeld("Creating an animal under an idempotency key", (statements) => {
          const found = recordOf(statements, scope, key)
          const decision = decide(found?.record)
          if (decision._tag !== "Create") return decision
          // An expired record of this key, not yet purged, gives way to the new one.
          if (found !== undefined) statements.run(deleteSql, found.petId)
          purger.purgeSome(statements, now, SqlStore.purgePerCreate)
          const created = insertPet(statements, pet)
          statements.run(insertRecordSql, created.id, scope, key, decision.fingerprint, decision.expiresAt)
          purger.appended(decision.expiresAt)
          return { _tag: "Created", pet: created } as IdempotencyStore.IdempotentCreateOutcome
        }),
      purge: (now, limit) =>
        database.write(
          "Purging expired idempotency keys",
          (statements) => purger.purge(statements, now, Math.max(0, Math.trunc(limit)))
        )
    }
  }
)

/** @internal */
export const layer: Layer.Layer<IdempotencyStore.IdempotencyStore, StoreError.StoreError, Database> = Layer.effect(
  IdempotencyStore.IdempotencyStore,
  make
)
