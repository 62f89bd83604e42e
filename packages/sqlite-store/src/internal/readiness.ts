/**
 * The SQLite store's readiness (`StoreReadiness`): a trivial `SELECT 1` on its
 * connection, its failure classified like every other SQLite failure.
 *
 * @internal
 */
import type { StoreError } from "@animal-store/core"
import { StoreReadiness } from "@animal-store/core"
import * as SqliteClient from "@effect/sql-sqlite-node/SqliteClient"
import { Effect, Layer } from "effect"
import { mapStoreError } from "./storeError.js"

/** `SELECT 1` on the `SqliteClient` of the context. @internal */
export const check = (client: SqliteClient.SqliteClient): Effect.Effect<void, StoreError.StoreError> =>
  client.unsafe("SELECT 1").pipe(Effect.asVoid, mapStoreError("Checking the SQLite database"))

/** The readiness of the `SqliteClient` of the context. @internal */
export const layer: Layer.Layer<StoreReadiness.StoreReadiness, never, SqliteClient.SqliteClient> = Layer.effect(
  StoreReadiness.StoreReadiness,
  Effect.map(SqliteClient.SqliteClient, (client) => StoreReadiness.make(check(client)))
)
