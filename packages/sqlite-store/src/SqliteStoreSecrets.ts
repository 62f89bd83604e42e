/**
 * The store's secrets, kept in its database (table `store_secrets`, migration
 * 5) so that every process that opens the file has the same ones, across
 * restarts: the `ListPetsQuery.CursorSecret` that seals listing cursors.
 *
 * A secret is made the first time it is asked for: a random value made in
 * this process is inserted unless one is there already (`INSERT OR IGNORE`),
 * then the stored one is read back, so processes opening a new file at once
 * agree on the first value written.
 *
 * @since 1.0.0
 */
import { ListPetsQuery } from "@animal-store/core"
import type { StoreError } from "@animal-store/core"
import { Effect, Layer, Redacted } from "effect"
import * as SqliteDatabase from "./SqliteDatabase.js"

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
): Effect.Effect<string, StoreError.StoreError, SqliteDatabase.SqliteDatabase> =>
  Effect.flatMap(SqliteDatabase.SqliteDatabase, (database) =>
    database.use("Reading the store's secret", (connection) => {
      const read = () => connection.firstValues<readonly [string]>(selectSql, name)?.[0]
      const found = read()
      if (found !== undefined) return found
      connection.run(insertSql, name, make())
      return read()!
    }))

const selectSql = "SELECT value FROM store_secrets WHERE name = ?"
const insertSql = "INSERT OR IGNORE INTO store_secrets (name, value) VALUES (?, ?)"

/**
 * The store's `ListPetsQuery.CursorSecret`: 32 random bytes (base64url) made
 * once per database.
 *
 * @since 1.0.0
 * @category layers
 */
export const layerCursorSecret: Layer.Layer<
  ListPetsQuery.CursorSecret,
  StoreError.StoreError,
  SqliteDatabase.SqliteDatabase
> = Layer.effect(
  ListPetsQuery.CursorSecret,
  Effect.map(getOrCreate(cursorSecretName, ListPetsQuery.randomCursorSecret), Redacted.make)
)
