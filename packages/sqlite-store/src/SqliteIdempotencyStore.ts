/**
 * `IdempotencyStore` on SQLite, in the `idempotency_keys` table beside
 * `pets`. A keyed create is one `BEGIN IMMEDIATE` transaction: read the key's
 * record, run the rule, and on `Create` purge a few expired records, insert
 * the animal and upsert the record, then commit. The write lock is held from
 * the read on, so processes sharing the file serialize on it: a concurrent
 * duplicate waits for the first to commit and replays its animal. Since the
 * transaction runs synchronously, no connection ever sees a claim in progress
 * (the rule's `InUse` never happens on this store), and a process killed at
 * any point leaves either both the animal and its record or neither.
 *
 * Purging deletes the earliest expiries through the `expires_at` index, a few
 * per creating call: a range seek, never a scan of live records.
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

const selectSql = `SELECT fingerprint, expires_at, pet_id, pet_name, pet_category_id, pet_status
  FROM idempotency_keys WHERE scope = ? AND key = ?`
const upsertSql = `INSERT INTO idempotency_keys
    (scope, key, fingerprint, expires_at, pet_id, pet_name, pet_category_id, pet_status)
  VALUES (?, ?, ?, ?, ?, ?, ?, ?)
  ON CONFLICT (scope, key) DO UPDATE SET fingerprint = excluded.fingerprint, expires_at = excluded.expires_at,
    pet_id = excluded.pet_id, pet_name = excluded.pet_name, pet_category_id = excluded.pet_category_id,
    pet_status = excluded.pet_status`
// A range seek on `idempotency_keys_expires_at`, earliest expiries first. Probing with a
// SELECT and deleting by rowid costs little when nothing has expired (the usual case
// between expiries), where a `DELETE ... WHERE rowid IN (SELECT ...)` cost as much as
// writing the record.
const expiredSql = `SELECT rowid FROM idempotency_keys WHERE expires_at <= ? ORDER BY expires_at LIMIT ?`
const deleteSql = `DELETE FROM idempotency_keys WHERE rowid = ?`

/** Deletes at most `limit` expired records, earliest expiries first; inside a transaction. */
const purgeIn = (connection: SqliteDatabase.Connection, now: number, limit: number): number => {
  const expired = connection.values<readonly [number]>(expiredSql, now, limit)
  for (const [rowid] of expired) connection.run(deleteSql, rowid)
  return expired.length
}

/**
 * @since 1.0.0
 * @category constructors
 */
export const make: Effect.Effect<IdempotencyStore.IdempotencyStoreService, never, SqliteDatabase.SqliteDatabase> =
  Effect.map(SqliteDatabase.SqliteDatabase, (database) => ({
    createPet: ({ decide, key, now, pet, scope }) =>
      database.use("Creating an animal under an idempotency key", (connection) =>
        connection.immediate((): IdempotencyStore.IdempotentCreateOutcome => {
          const decision = decide(toRecord(connection.firstValues<RecordRow>(selectSql, scope, key)))
          if (decision._tag !== "Create") return decision
          purgeIn(connection, now, purgePerCreate)
          const created = toPet(connection.firstValues<PetRow>(insertSql, pet.name, pet.categoryId, pet.status)!)
          connection.run(
            upsertSql,
            scope,
            key,
            decision.fingerprint,
            decision.expiresAt,
            created.id,
            created.name,
            created.categoryId,
            created.status
          )
          return { _tag: "Created", pet: created }
        })),
    purge: (now, limit) =>
      database.use("Purging expired idempotency keys", (connection) =>
        connection.immediate(() => purgeIn(connection, now, Math.max(0, Math.trunc(limit)))))
  }))

/**
 * @since 1.0.0
 * @category layers
 */
export const layer: Layer.Layer<IdempotencyStore.IdempotencyStore, never, SqliteDatabase.SqliteDatabase> = Layer
  .effect(IdempotencyStore.IdempotencyStore, make)
