/**
 * `IdempotencyStore` on PostgreSQL: a keyed create is one transaction whose first statement locks the
 * `(scope, key)` row (an upsert of a placeholder); a concurrent duplicate, in any process, waits for it
 * and replays the committed animal. A decision that writes nothing rolls back (record 0012).
 *
 * @since 1.0.0
 */
import type { Pet } from "@animal-store/core"
import { IdempotencyStore } from "@animal-store/core"
import { SqlRow, SqlStore } from "@animal-store/sql-store"
import type { SqlError } from "@effect/sql/SqlError"
import { Data, Effect, Layer, Option } from "effect"
import { mapStoreError } from "./internal/storeError.js"
import * as PostgresDatabase from "./PostgresDatabase.js"
import * as PostgresPetRepository from "./PostgresPetRepository.js"

type LockRow = readonly [fingerprint: string | null, expiresAt: string | null, petId: string | null]
const stringOrNull = SqlRow.isNullOr(SqlRow.isString)
const isLockRow: SqlRow.Guard<LockRow> = SqlRow.tuple(stringOrNull, stringOrNull, stringOrNull)

/** The rows a statement changed, from `pg`'s result. */
const rowCountOf = (result: unknown): number =>
  typeof result === "object" && result !== null && "rowCount" in result && typeof result.rowCount === "number"
    ? result.rowCount
    : 0

/** Ends the transaction of a decision that writes nothing, with a rollback. */
class NothingWritten extends Data.TaggedError("NothingWritten")<{
  readonly outcome: IdempotencyStore.IdempotentCreateOutcome
}> {}

/**
 * @since 1.0.0
 * @category constructors
 */
export const make: Effect.Effect<
  IdempotencyStore.IdempotencyStoreService,
  never,
  PostgresDatabase.PostgresDatabase
> = Effect.gen(function*() {
  const { sql, table } = yield* PostgresDatabase.PostgresDatabase
  const pets = yield* PostgresPetRepository.make
  const keys = table("idempotency_keys")
  const lockSql = `INSERT INTO ${keys} AS r (scope, key) VALUES ($1, $2)
    ON CONFLICT (scope, key) DO UPDATE SET scope = r.scope
    RETURNING fingerprint, expires_at, pet_id`
  // An upsert: the purge before it may have deleted this key's own expired record (rows this transaction
  // locked are not skipped by SKIP LOCKED).
  const writeSql = `INSERT INTO ${keys} AS r (scope, key, fingerprint, expires_at, pet_id) VALUES ($1, $2, $3, $4, $5)
    ON CONFLICT (scope, key) DO UPDATE SET fingerprint = excluded.fingerprint, expires_at = excluded.expires_at,
      pet_id = excluded.pet_id`
  // The earliest expiries through the index; rows other transactions hold are skipped, not waited for.
  const purgeSql = `DELETE FROM ${keys} WHERE ctid IN
    (SELECT ctid FROM ${keys} WHERE expires_at <= $1 ORDER BY expires_at LIMIT $2 FOR UPDATE SKIP LOCKED)`
  const purge = (now: number, limit: number): Effect.Effect<number, SqlError> =>
    Effect.map(sql.unsafe(purgeSql, [now, limit]).raw, rowCountOf)
  const recordOf = (row: LockRow | undefined) =>
    row === undefined || row[0] === null
      ? Effect.succeed(undefined)
      : Effect.map(
        pets.findById(Number(row[2]) as Pet.PetId),
        (pet): IdempotencyStore.IdempotencyRecord | undefined =>
          Option.isNone(pet) ? undefined : {
            _tag: "Completed",
            fingerprint: row[0]!,
            expiresAt: Number(row[1]),
            pet: pet.value
          }
      )
  return {
    createPet: ({ decide, key, now, pet, scope }) =>
      sql.withTransaction(Effect.gen(function*() {
        const rows = yield* SqlRow.values(sql.unsafe(lockSql, [scope, key]), isLockRow)
        const decision = decide(yield* recordOf(rows[0]))
        if (decision._tag !== "Create") return yield* new NothingWritten({ outcome: decision })
        yield* purge(now, SqlStore.purgePerCreate)
        const created = yield* pets.insert(pet)
        yield* sql.unsafe(writeSql, [scope, key, decision.fingerprint, decision.expiresAt, created.id])
        return { _tag: "Created", pet: created } as IdempotencyStore.IdempotentCreateOutcome
      })).pipe(
        Effect.catchTag("NothingWritten", (nothing) => Effect.succeed(nothing.outcome)),
        mapStoreError("Creating an animal under an idempotency key")
      ),
    purge: (now, limit) => purge(now, limit).pipe(mapStoreError("Purging expired idempotency keys"))
  }
})

/**
 * @since 1.0.0
 * @category layers
 */
export const layer: Layer.Layer<IdempotencyStore.IdempotencyStore, never, PostgresDatabase.PostgresDatabase> = Layer
  .effect(IdempotencyStore.IdempotencyStore, make)
