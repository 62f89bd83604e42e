/**
 * `RateLimitStore` on PostgreSQL: the calls waiting together share one compare-and-set statement
 * (`internal/rateLimitBatch.ts`; record 0037), so every request is counted exactly once across
 * processes and no row lock is held across a round trip. `get` reads a row without locking it.
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
