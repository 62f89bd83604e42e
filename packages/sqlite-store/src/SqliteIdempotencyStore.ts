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
 * A record is keyed by its animal's id (schema version 6), appended in
 * creation order. Keys are found through an index each process keeps in
 * memory (version 8 dropped the index of keys in the file, whose entry at a
 * random place dirtied a page per keyed create): inside the write
 * transaction, the process reads the records appended since the last one it
 * read (normally none, and only in the first call of a transaction), then
 * checks the rows its entries point to (scope and key), so a record purged,
 * replaced or rolled back is no record. One record per scope and key is what
 * the locked read-then-insert keeps. The index holds one entry per live
 * record of the file, a hash and an id in typed arrays (40 to 80 bytes,
 * whatever the key's length, outside the JS heap; the expired ones are
 * forgotten a few per create), and is read whole once, when the store opens
 * (the layer is built).
 *
 * Records are appended in creation order, which is
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
import type { Pet, StoreError } from "@animal-store/core"
import { IdempotencyStore } from "@animal-store/core"
import { Clock, Effect, Layer } from "effect"
import type { PetRow } from "./internal/petRow.js"
import { toPet } from "./internal/petRow.js"
import * as KeyIndex from "./internal/keyIndex.js"
import { insertPet } from "./internal/petSql.js"
import * as SqliteDatabase from "./SqliteDatabase.js"

/**
 * How many expired records a creating call purges at most.
 *
 * @since 1.0.0
 * @category constants
 */
export const purgePerCreate = 4

type RecordRow = readonly [
  scope: string,
  key: string,
  fingerprint: string,
  expiresAt: number,
  petId: number,
  petName: string,
  petCategoryId: number,
  petStatus: Pet.PetStatus
]

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
 * This process's index of the keys (`internal/keyIndex`): the records it
 * has read, by their animal id, in the order they were appended.
 * Records are appended in commit order (an animal's id only grows, and its
 * record is written in the same transaction), so the records another process
 * committed are those after the last one read: `catchUp`, run inside the
 * write transaction, reads them (normally none, one seek of the primary
 * key). An entry is a candidate, checked against the row it points to: a
 * record purged, replaced or rolled back is no record, nor is another key's
 * of the same hash.
 *
 * `committed` is the last record known committed: it only moves once the
 * transaction that read up to it has committed (`settle`, called by
 * `Connection.afterCommit`), so records of a
 * transaction that rolled back are read again, as another process may have
 * appended other records under the same ids since. `reading` is the last
 * record visible to the open write transaction: the first call of a
 * transaction catches up, and the calls after it read nothing, as the
 * transaction holds the write lock (no other connection appends) and each
 * call adds what it appends (`appended`). It is forgotten when the
 * transaction ends, committed or rolled back (`Connection.atTurnEnd`). Inside
 * a host's `SqlClient` transaction it is forgotten at the next microtask,
 * and every call reads the records appended since it.
 */
const makeKeyIndex = () => {
  const index = KeyIndex.make()
  let committed = 0
  let reading: number | undefined
  // Whether `reading` lasts as long as the turn's transaction; inside a host's
  // transaction (which may commit and another begin before the microtask)
  // every call reads on from it.
  let readingTurn = false
  const endReading = () => {
    reading = undefined
  }
  return {
    /**
     * Reads the records of the file, outside a transaction (what it reads is
     * committed), skipping those expired at `now`: when the store opens.
     */
    load: (connection: SqliteDatabase.Connection, now: number): void => {
      for (const [petId, scope, key, expiresAt] of connection.values<readonly [number, string, string, number]>(appendedSql, committed)) {
        if (expiresAt > now) index.add(scope, key, petId, expiresAt)
        committed = petId
      }
    },
    /**
     * Reads the records appended since the last one read, once per write
     * transaction (inside it). Answers the last record it sees.
     */
    catchUp: (connection: SqliteDatabase.Connection): number => {
      if (reading === undefined) {
        reading = committed
        readingTurn = connection.atTurnEnd("Reading the idempotency keys", endReading, endReading)
        if (!readingTurn) queueMicrotask(endReading)
      } else if (readingTurn) {
        return reading
      }
      const rows = connection.values<readonly [petId: number, scope: string, key: string, expiresAt: number]>(
        appendedSql,
        reading
      )
      for (const [petId, scope, key, expiresAt] of rows) {
        index.add(scope, key, petId, expiresAt)
        reading = petId
      }
      return reading
    },
    /** Adds the record this transaction just appended (its last): the calls after it need not read it. */
    appended: (scope: string, key: string, petId: number, expiresAt: number): number => {
      index.add(scope, key, petId, expiresAt)
      reading = petId
      return petId
    },
    /** Records that a transaction which read up to `petId` has committed. */
    settle: (petId: number): void => {
      if (petId > committed) committed = petId
    },
    find: index.find,
    forgetExpired: index.forgetExpired
  }
}

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
export const make: Effect.Effect<
  IdempotencyStore.IdempotencyStoreService,
  StoreError.StoreError,
  SqliteDatabase.SqliteDatabase
> = Effect.gen(function*() {
  const database = yield* SqliteDatabase.SqliteDatabase
  const purger = makePurger()
  const keys = makeKeyIndex()
  const now = yield* Clock.currentTimeMillis
  yield* database.use("Reading the idempotency keys", (connection) => keys.load(connection, now))
  /** The record of `(scope, key)`: the row of a candidate of the index that is of that scope and key. */
  const recordOf = (
    connection: SqliteDatabase.Connection,
    scope: string,
    key: string
  ): { readonly petId: number; readonly record: IdempotencyStore.IdempotencyRecord } | undefined =>
    keys.find(scope, key, (petId) => {
      const row = connection.firstValues<RecordRow>(selectSql, petId)
      if (row === undefined || row[0] !== scope || row[1] !== key) return undefined
      return {
        petId,
        record: { _tag: "Completed", fingerprint: row[2], expiresAt: row[3], pet: toPet([row[4], row[5], row[6], row[7]] as PetRow) }
      }
    })
  return {
    createPet: ({ decide, key, now, pet, scope }) =>
      database.batched("Creating an animal under an idempotency key", (connection) => {
        const read = keys.catchUp(connection)
        const found = recordOf(connection, scope, key)
        const decision = decide(found?.record)
        if (decision._tag !== "Create") {
          connection.afterCommit(() => keys.settle(read))
          return decision
        }
        // An expired record of this key, not yet purged, gives way to the new one.
        if (found !== undefined) connection.run(deleteSql, found.petId)
        purger.purgeSome(connection, now, purgePerCreate)
        keys.forgetExpired(now, forgetPerCreate)
        const created = insertPet(connection, pet)
        connection.run(insertRecordSql, created.id, scope, key, decision.fingerprint, decision.expiresAt)
        purger.appended(decision.expiresAt)
        const appended = keys.appended(scope, key, created.id, decision.expiresAt)
        connection.afterCommit(() => keys.settle(appended))
        return { _tag: "Created", pet: created } as IdempotencyStore.IdempotentCreateOutcome
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
export const layer: Layer.Layer<IdempotencyStore.IdempotencyStore, StoreError.StoreError, SqliteDatabase.SqliteDatabase> = Layer
  .effect(IdempotencyStore.IdempotencyStore, make)
