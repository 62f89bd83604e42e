/**
 * The store's secrets, kept in its database so that every process on it has
 * the same ones across restarts: the `ListPetsQuery.CursorSecret` that seals
 * listing cursors. A secret is made by the first process that asks for it;
 * processes asking at once agree on the first value stored.
 *
 * @since 1.0.0
 */
import { ListPetsQuery } from "@animal-store/core"
import type { StoreError } from "@animal-store/core"
import type * as SqlClient from "@effect/sql/SqlClient"
import { Effect, Layer, Redacted } from "effect"
import * as internal from "./internal/secrets.js"
import type * as SqlStoreError from "./SqlStoreError.js"

/**
 * The default table of the secrets: `(name text PRIMARY KEY, value text)`,
 * created by the store's migrations.
 *
 * @since 1.0.0
 * @category constants
 */
export const table = "store_secrets"

/**
 * The name of the cursor secret in the table.
 *
 * @since 1.0.0
 * @category constants
 */
export const cursorSecretName = "cursor_secret"

/**
 * @since 1.0.0
 * @category models
 */
export interface Options {
  readonly classifier: SqlStoreError.Classifier
  /** The table, `schema.name` when qualified. Default `store_secrets`. */
  readonly table?: string | undefined
}

/**
 * The secret `name`, made with `make` and stored when the database has none.
 *
 * @since 1.0.0
 * @category constructors
 */
export const getOrCreate = (
  options: Options,
  name: string,
  make: () => string
): Effect.Effect<string, StoreError.StoreError, SqlClient.SqlClient> =>
  internal.getOrCreate({ classifier: options.classifier, table: options.table ?? table }, name, make)

/**
 * The store's `ListPetsQuery.CursorSecret`, made once per database.
 *
 * @since 1.0.0
 * @category layers
 */
export const layerCursorSecret = (
  options: Options
): Layer.Layer<ListPetsQuery.CursorSecret, StoreError.StoreError, SqlClient.SqlClient> =>
  Layer.effect(
    ListPetsQuery.CursorSecret,
    Effect.map(getOrCreate(options, cursorSecretName, ListPetsQuery.randomCursorSecret), Redacted.make)
  )
