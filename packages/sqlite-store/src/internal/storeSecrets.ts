/**
 * The store's secrets, kept in its database (table `store_secrets`) so that
 * every process that opens the file has the same ones: the
 * `ListPetsQuery.CursorSecret`. A secret made in this process is inserted
 * unless one is there already, then the stored one is read back.
 *
 * @internal
 */
import type { StoreError } from "@animal-store/core"
import { ListPetsQuery } from "@animal-store/core"
import { Effect, Layer, Redacted } from "effect"
import { GroupCommit, run, values } from "./groupCommit.js"

/** The name of the cursor secret in `store_secrets`. */
export const cursorSecretName = "cursor_secret"

const selectSql = "SELECT value FROM store_secrets WHERE name = ?"
const insertSql = "INSERT OR IGNORE INTO store_secrets (name, value) VALUES (?, ?)"

/** The secret `name` of the store, made with `make` (and stored) when it has none yet. */
export const getOrCreate = (
  name: string,
  make: () => string
): Effect.Effect<string, StoreError.StoreError, GroupCommit> =>
  Effect.flatMap(GroupCommit, (database) =>
    database.write("Reading the store's secret", (connection) =>
      run(connection, insertSql, name, make()).pipe(
        Effect.zipRight(values<readonly [string]>(connection, selectSql, name)),
        Effect.map((rows) => rows[0]![0])
      )))

/** The store's `ListPetsQuery.CursorSecret`: 32 random bytes (base64url) made once per database. */
export const layerCursorSecret: Layer.Layer<ListPetsQuery.CursorSecret, StoreError.StoreError, GroupCommit> = Layer.effect(
  ListPetsQuery.CursorSecret,
  Effect.map(getOrCreate(cursorSecretName, ListPetsQuery.randomCursorSecret), Redacted.make)
)
