/**
 * The store's secrets, kept in its database (table `store_secrets` of the
 * store's schema, migration 5) so that every process on the database has the
 * same ones, across restarts: the `ListPetsQuery.CursorSecret` that seals
 * listing cursors.
 *
 * A secret is made the first time it is asked for: a random value made in
 * this process is inserted unless one is there already (`ON CONFLICT DO
 * NOTHING`), then the stored one is read back, so processes starting on a new
 * database at once agree on the first value written.
 *
 * @since 1.0.0
 */
import { ListPetsQuery } from "@animal-store/core"
import type { StoreError } from "@animal-store/core"
import { Effect, Layer, Redacted } from "effect"
import { mapStoreError } from "./internal/storeError.js"
import * as PostgresDatabase from "./PostgresDatabase.js"

/**
 * The name of the cursor secret in `store_secrets`.
 *
 * @since 1.0.0
 * @category constants
 */
export const cursorSecretName = "cursor_secret"

/**
 * The secret `name` of the store, made with `make` (and stored) when it has
 * none yet.
 *
 * @since 1.0.0
 * @category queries
 */
export const getOrCreate = (
  name: string,
  make: () => string
): Effect.Effect<string, StoreError.StoreError, PostgresDatabase.PostgresDatabase> =>
  Effect.gen(function*() {
    const db = yield* PostgresDatabase.PostgresDatabase
    const read = Effect.map(
      db.sql.unsafe<{ readonly value: string }>(`SELECT value FROM ${db.table("store_secrets")} WHERE name = $1`, [name]),
      (rows) => rows[0]?.value
    )
    const found = yield* read
    if (found !== undefined) return found
    yield* db.sql.unsafe(
      `INSERT INTO ${db.table("store_secrets")} (name, value) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING`,
      [name, make()]
    )
    const stored = yield* read
    if (stored === undefined) return yield* Effect.dieMessage(`The store's secret "${name}" was not stored`)
    return stored
  }).pipe(mapStoreError("Reading the store's secret"))

/**
 * The store's `ListPetsQuery.CursorSecret`: 32 random bytes (base64url) made
 * once per database (and schema).
 *
 * @since 1.0.0
 * @category layers
 */
export const layerCursorSecret: Layer.Layer<
  ListPetsQuery.CursorSecret,
  StoreError.StoreError,
  PostgresDatabase.PostgresDatabase
> = Layer.effect(
  ListPetsQuery.CursorSecret,
  Effect.map(getOrCreate(cursorSecretName, ListPetsQuery.randomCursorSecret), Redacted.make)
)
