/**
 * Where the standalone server and the CLI keep their data: `memory` (gone
 * when the process ends), `sqlite:<path>` (a SQLite file, created with its
 * folder: several processes on one machine) or
 * `postgres://user:password@host:port/db` (a PostgreSQL database: several
 * processes on several machines). The default is
 * `sqlite:./data/animal-store.db`. Each store reads its own URLs
 * (`StoreUrl`); a PostgreSQL password stays `Redacted` and prints as `***`.
 *
 * @since 1.0.0
 */
import type { AnimalStore, StoreError } from "@animal-store/core"
import { MemoryStore } from "@animal-store/memory-store"
import * as PostgresUrl from "@animal-store/postgres-store/PostgresUrl"
import * as StoreUrl from "@animal-store/sql-store/StoreUrl"
import { SqliteStore } from "@animal-store/sqlite-store"
import type { Layer } from "effect"
import { Either } from "effect"

/**
 * @since 1.0.0
 * @category models
 */
export type StoreLocation =
  | { readonly _tag: "Memory" }
  | SqliteStore.Location
  | PostgresUrl.Location

const memory = StoreUrl.make<{ readonly _tag: "Memory" }>({
  tag: "Memory",
  form: "memory",
  accepts: (text) => text === "memory",
  parse: () => Either.right({ _tag: "Memory" }),
  format: () => "memory",
  layer: () => MemoryStore.layer
})

/**
 * The stores the server offers, by their URLs.
 *
 * @since 1.0.0
 * @category constants
 */
export const stores: StoreUrl.Registry<StoreLocation> = StoreUrl.registry(memory, SqliteStore.storeUrl, PostgresUrl.storeUrl)

/**
 * `sqlite:./data/animal-store.db`.
 *
 * @since 1.0.0
 * @category constants
 */
export const defaultLocation: StoreLocation = { _tag: "Sqlite", filename: "./data/animal-store.db" }

/**
 * Reads `memory`, `sqlite:<path>` or `postgres://...` (also `postgresql://`);
 * `Left` with the reason otherwise. The reason never repeats a PostgreSQL
 * URL's password.
 *
 * @since 1.0.0
 * @category constructors
 */
export const parse = (value: string): Either.Either<StoreLocation, string> => stores.parse(value)

/**
 * The text form, as `parse` reads it, with a PostgreSQL password as `***`.
 *
 * @since 1.0.0
 * @category conversions
 */
export const format = (location: StoreLocation): string => stores.format(location)

/**
 * The store ports at `location` (with its cursor secret). The PostgreSQL store is loaded on
 * first use (it is a chunk of its own in the bundled command).
 *
 * @since 1.0.0
 * @category layers
 */
export const layer = (location: StoreLocation): Layer.Layer<AnimalStore.StorePorts, StoreError.StoreError> =>
  stores.layer(location)
