/**
 * The SQLite store's readiness (`StoreReadiness`): its files are still the
 * ones it opened (`fileGuard.ts`) and a trivial `SELECT 1` on its connection
 * answers, its failure classified like every other SQLite failure.
 *
 * @internal
 */
import type { StoreError } from "@animal-store/core"
import { StoreReadiness } from "@animal-store/core"
import * as SqliteClient from "@effect/sql-sqlite-node/SqliteClient"
import { Effect, Layer } from "effect"
import * as FileGuard from "./fileGuard.js"
import { mapStoreError } from "./storeError.js"

/** The file check, then `SELECT 1`, on `client`. @internal */
export const check = (client: SqliteClient.SqliteClient): Effect.Effect<void, StoreError.StoreError> =>
  Effect.zipRight(
    FileGuard.forClient(client).check,
    client.unsafe("SELECT 1").pipe(Effect.asVoid, mapStoreError("Checking the SQLite database"))
  )

/** The readiness of the `SqliteClient` of the context. @internal */
export const layer: Layer.Layer<StoreReadiness.StoreReadiness, never, SqliteClient.SqliteClient> = Layer.effect(
  StoreReadiness.StoreReadiness,
  Effect.map(SqliteClient.SqliteClient, (client) => StoreReadiness.make(check(client)))
)
