/**
 * `RateLimitStore` on PostgreSQL. The calls waiting together share one
 * statement: each subject's row is written only where it still holds the
 * value the rule ran on (a compare-and-set on the whole row), so a row that
 * another process changed is read again and its calls run again on it
 * (`internal/rateLimitBatch.ts`). Every request is counted exactly once and
 * no process accepts more than the limit together with the others; no row
 * lock is held across a round trip. A call completes once its statement
 * has committed. `get` reads a subject's row without locking it.
 *
 * @since 1.0.0
 */
import { RateLimitStore } from "@animal-store/core"
import { Effect, Layer } from "effect"
import * as RateLimitBatch from "./internal/rateLimitBatch.js"
import * as RateLimitRows from "./internal/rateLimitRows.js"
import * as PostgresDatabase from "./PostgresDatabase.js"

/**
 * @since 1.0.0
 * @category constructors
 */
export const make: Effect.Effect<RateLimitStore.RateLimitStoreService, never, PostgresDatabase.PostgresDatabase> =
  Effect.flatMap(PostgresDatabase.PostgresDatabase, (db) => {
    const rows = RateLimitRows.make(db)
    return Effect.map(RateLimitBatch.make(db, rows), (modify) => ({ modify, get: rows.get }))
  })

/**
 * @since 1.0.0
 * @category layers
 */
export const layer: Layer.Layer<RateLimitStore.RateLimitStore, never, PostgresDatabase.PostgresDatabase> = Layer.effect(
  RateLimitStore.RateLimitStore,
  make
)
