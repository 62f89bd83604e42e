import type { StoreError } from "@animal-store/core"
import * as SqlClient from "@effect/sql/SqlClient"
import { Effect } from "effect"
import type * as SqlStoreError from "../SqlStoreError.js"
import { mapError } from "./storeError.js"

/** @internal */
export const getOrCreate = (
  options: { readonly classifier: SqlStoreError.Classifier; readonly table: string },
  name: string,
  make: () => string
): Effect.Effect<string, StoreError.StoreError, SqlClient.SqlClient> =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const table = sql(options.table)
    const read = Effect.map(
      sql<{ readonly value: string }>`SELECT value FROM ${table} WHERE name = ${name}`,
      (rows) => rows[0]?.value
    )
    const found = yield* read
    if (found !== undefined) return found
    // The insert comes first in the transaction (a SQLite writer takes its lock before reading),
    // and keeps the value of whoever inserted first.
    return yield* sql.withTransaction(Effect.gen(function*() {
      yield* sql`INSERT INTO ${table} (name, value) VALUES (${name}, ${make()}) ON CONFLICT (name) DO NOTHING`
      const stored = yield* read
      if (stored === undefined) return yield* Effect.dieMessage(`The store's secret "${name}" was not stored`)
      return stored
    }))
  }).pipe(mapError(options.classifier, "Reading the store's secret"))
