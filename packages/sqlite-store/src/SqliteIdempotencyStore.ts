/**
 * `IdempotencyStore` on SQLite, in the `idempotency_keys` table beside
 * `pets`. A keyed create runs in the group-commit transaction of its turn
 * (`SqliteDatabase.batched`, one `BEGIN IMMEDIATE`): read the key's
 * record, run the rule, and on `Create` purge a few expired records, insert
 * the animal and its record, then commit. The write lock is held from the
 * read on, so processes sharing the file serialize on it: a concurrent
 * duplicate waits for the first to commit and replays its animal. Since the
 * transaction runs synchronously, no connection ever sees a claim in progress
 * (the rule's `InUse` never happens on this store), and a process killed at
 * any point leaves either both the animal and its record or neither.
 *
 * A record is keyed by its animal's id (schema version 6) and found through
 * an index of keys, its scope compared in the row (version 7: one record per
 * scope and key is what the locked read-then-insert keeps, not a unique
 * index, whose entries would be three times as large). Records are appended
 * in creation order, which is
 * expiry order (every record lives 24 hours), so purging deletes from the
 * head of the table, a few per creating call, never scanning live records.
 * Processes sharing the file read their clocks before taking the write lock,
 * so two records may be appended out of expiry order by as long as one waited
 * for the lock (at most the busy timeout): the later one is purged that much
 * later. The rule never depends on purging: an expired record is as good as
 * none. The replayed animal is read from `pets` (animals never change).
 *
 * @since 1.0.0
 */
import type { Pet } from "@animal-store/core"
import { IdempotencyStore } from "@animal-store/core"
import { Effect, Layer } from "effect"
import type { PetRow } from "./internal/petRow.js"
import { toPet } from "./internal/petRow.js"
import { insertSql } from "./internal/petSql.js"
import * as SqliteDatabase from "./SqliteDatabase.js"

/**
 * How many expired records a creating call purges at most.
 *
 * @since 1.0.0
 * @category constants
 */
export const purgePerCreate = 4

type RecordRow = readonly [
  fingerprint: string,
  expiresAt: number,
  petId: number,
  petName: string,
  petCategoryId: number,
  petStatus: Pet.PetStatus
]

const toRecord = (row: RecordRow | undefined): IdempotencyStore.IdempotencyRecord | undefined =>
  row === undefined ? undefined : {
    _tag: "Completed",
    fingerprint: row[0],
    expiresAt: row[1],
    pet: toPet([row[2], row[3], row[4], row[5]] as PetRow)
  }

const selectSql = `SELECT r.fingerprint, r.expires_at, p.id, p.name, p.category_id, p.status
  FROM idempotency_keys AS r JOIN pets AS p ON p.id = r.pet_id WHERE r.scope = ? AND r.key = ?`
const insertRecordSql = `INSERT INTO idempotency_keys (pet_id, scope, key, fingerprint, expires_at) VALUES (?, ?, ?, ?, ?)`
const deleteByKeySql = `DELETE FROM idempotency_keys WHERE scope = ? AND key = ?`
// The head of the table, in creation (so expiry) order: one more row than may be deleted.
const headSql = `SELECT pet_id, expires_at FROM idempotency_keys ORDER BY pet_id LIMIT ?`
const deleteSql = `DELETE FROM idempotency_keys WHERE pet_id = ?`

/**
 * Purging from the head of the table. `earliestExpiry` is what this process
 * knows of the head's expiry, a lower bound (0: unknown): until then nothing
 * has expired, and a creating call does not even read the head. Records
 * other processes append come later in the table and expire later (within
 * the skew of their clocks); a rolled back transaction leaves the bound lower
 * than the truth, which only costs one more read.
 */
const makePurger = () => {
  let earliestExpiry = 0
  const purge = (connection: SqliteDatabase.Connection, now: number, limit: number): number => {
    const head = connection.values<readonly [petId: number, expiresAt: number]>(headSql, limit + 1)
    let purged = 0
    while (purged < limit && purged < head.length && head[purged]![1] <= now) {
      connection.run(deleteSql, head[purged]![0])
      purged++
    }
    // What is left at the head: nothing (an empty table), more expired records
    // than `limit` allowed (read again next time), or the earliest live one.
    const next = head[purged]
    earliestExpiry = next === undefined ? Infinity : next[1] <= now ? 0 : next[1]
    return purged
  }
  return {
    /** Deletes at most `limit` expired records from the head of the table; inside a transaction. */
    purge,
    /** As `purge`, skipped while nothing can have expired. */
    purgeSome: (connection: SqliteDatabase.Connection, now: number, limit: number): number =>
      now < earliestExpiry ? 0 : purge(connection, now, limit),
    /** Records that this process appended a record expiring at `expiresAt`. */
    appended: (expiresAt: number): void => {
      earliestExpiry = Math.min(earliestExpiry, expiresAt)
    }
  }
}

/**
 * @since 1.0.0
 * @category constructors
 */
export const make: Effect.Effect<IdempotencyStore.IdempotencyStoreService, never, SqliteDatabase.SqliteDatabase> =
  Effect.map(SqliteDatabase.SqliteDatabase, (database) => {
    const purger = makePurger()
    return {
    createPet: ({ decide, key, now, pet, scope }) =>
      database.batched("Creating an animal under an idempotency key", (connection): IdempotencyStore.IdempotentCreateOutcome => {
          const record = toRecord(connection.firstValues<RecordRow>(selectSql, scope, key))
          const decision = decide(record)
          if (decision._tag !== "Create") return decision
          // An expired record of this key, not yet purged, gives way to the new one.
          if (record !== undefined) connection.run(deleteByKeySql, scope, key)
          purger.purgeSome(connection, now, purgePerCreate)
          const created = toPet(connection.firstValues<PetRow>(insertSql, pet.name, pet.categoryId, pet.status)!)
          connection.run(insertRecordSql, created.id, scope, key, decision.fingerprint, decision.expiresAt)
          purger.appended(decision.expiresAt)
          return { _tag: "Created", pet: created }
        }),
      purge: (now, limit) =>
        database.use("Purging expired idempotency keys", (connection) =>
          connection.immediate(() => purger.purge(connection, now, Math.max(0, Math.trunc(limit)))))
    }
  })

/**
 * @since 1.0.0
 * @category layers
 */
export const layer: Layer.Layer<IdempotencyStore.IdempotencyStore, never, SqliteDatabase.SqliteDatabase> = Layer
  .effect(IdempotencyStore.IdempotencyStore, make)
