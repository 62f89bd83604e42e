/**
 * `RateLimitStore` on PostgreSQL. `modify` runs in one transaction per call:
 * its first statement locks the subject's row (creating it when the subject
 * is new: `INSERT ... ON CONFLICT DO UPDATE` takes the row lock either way and
 * returns the stored counters), then core's rule runs on them, then the new
 * counters are written and the transaction commits, releasing the lock. Any
 * other `modify` of the same subject, in this process or another on the same
 * database, waits for the lock and then reads what this one wrote: every
 * request is counted exactly once and no process accepts more than the limit
 * together with the others. Different subjects do not wait for each other.
 * `get` reads a subject's row without locking it.
 *
 * @since 1.0.0
 */
import { RateLimitStore } from "@animal-store/core"
import type { SqlError } from "@effect/sql/SqlError"
import { Effect, Layer } from "effect"
import { escapeLiteral } from "pg"
import { mapStoreError } from "./internal/storeError.js"
import * as PostgresDatabase from "./PostgresDatabase.js"

type StateRow = readonly [
  minuteStart: string | null,
  minuteCount: string | null,
  dayStart: string | null,
  dayCount: string | null,
  refusedCount: string | null,
  bannedUntil: string | null
]

// A row whose counters are NULL was created by the locking statement: no state yet.
const toState = (row: StateRow | undefined): RateLimitStore.RateLimitState | undefined =>
  row === undefined || row[0] === null ? undefined : {
    minuteStart: Number(row[0]),
    minuteCount: Number(row[1]),
    dayStart: Number(row[2]),
    dayCount: Number(row[3]),
    refusedCount: Number(row[4]),
    bannedUntil: Number(row[5])
  }

const integer = (value: number): string => {
  if (!Number.isSafeInteger(value)) throw new Error(`A rate-limit counter must be a safe integer, got ${value}`)
  return String(value)
}

/**
 * @since 1.0.0
 * @category constructors
 */
export const make: Effect.Effect<RateLimitStore.RateLimitStoreService, never, PostgresDatabase.PostgresDatabase> =
  Effect.map(PostgresDatabase.PostgresDatabase, ({ sql, table }) => {
    const limits = table("rate_limits")
    // Two round trips per call, each one simple-protocol text of two
    // statements (values inlined as literals: the protocol that allows several
    // statements takes no parameters): `BEGIN` + lock-and-read, then write +
    // `COMMIT`. The subject is quoted with `escapeLiteral`; counters are
    // checked to be integers.
    const lockSql = (subject: string) =>
      `BEGIN; INSERT INTO ${limits} AS r (subject) VALUES (${escapeLiteral(subject)})
      ON CONFLICT (subject) DO UPDATE SET subject = r.subject
      RETURNING minute_start, minute_count, day_start, day_count, refused_count, banned_until`
    const writeSql = (subject: string, next: RateLimitStore.RateLimitState) =>
      `UPDATE ${limits} SET minute_start = ${integer(next.minuteStart)}, minute_count = ${integer(next.minuteCount)},
      day_start = ${integer(next.dayStart)}, day_count = ${integer(next.dayCount)},
      refused_count = ${integer(next.refusedCount)}, banned_until = ${integer(next.bannedUntil)}
      WHERE subject = ${escapeLiteral(subject)}; COMMIT`
    return {
      modify: (subject, f) =>
        Effect.scoped(Effect.flatMap(sql.reserve, (connection) =>
          Effect.gen(function*() {
            const results = (yield* connection.executeUnprepared(lockSql(subject), [], undefined)) as unknown as [
              unknown,
              ReadonlyArray<Record<string, string | null>>
            ]
            const row = results[1][0]
            const [result, next] = f(
              row === undefined ? undefined : toState([
                row["minute_start"]!,
                row["minute_count"]!,
                row["day_start"]!,
                row["day_count"]!,
                row["refused_count"]!,
                row["banned_until"]!
              ])
            )
            yield* connection.executeUnprepared(writeSql(subject, next), [], undefined)
            return result
          }).pipe(
            // Never hand the connection back to the pool inside a transaction.
            Effect.onError(() => Effect.ignore(connection.executeUnprepared("ROLLBACK", [], undefined))),
            Effect.uninterruptible
          ))).pipe(mapStoreError("Counting a request")),
      get: (subject) =>
        (sql.unsafe(
          `SELECT minute_start, minute_count, day_start, day_count, refused_count, banned_until
          FROM ${limits} WHERE subject = $1`,
          [subject]
        ).values as unknown as Effect.Effect<ReadonlyArray<StateRow>, SqlError>).pipe(
          Effect.map((rows) => toState(rows[0])),
          mapStoreError("Reading a rate-limit state")
        )
    }
  })

/**
 * @since 1.0.0
 * @category layers
 */
export const layer: Layer.Layer<RateLimitStore.RateLimitStore, never, PostgresDatabase.PostgresDatabase> = Layer.effect(
  RateLimitStore.RateLimitStore,
  make
)
