/**
 * Where the standalone server and the CLI keep their data: `memory`,
 * `sqlite:<path>` (the default, `sqlite:./data/animal-store.db`) or
 * `postgres://...`; a PostgreSQL password stays `Redacted`.
 *
 * @since 1.0.0
 */
import type { AnimalStore } from "@animal-store/core"
import { StoreError } from "@animal-store/core"
import { MemoryStore } from "@animal-store/memory-store"
import * as PostgresUrl from "@animal-store/postgres-store/PostgresUrl"
import * as StoreUrl from "@animal-store/sql-store/StoreUrl"
import { SqliteStore } from "@animal-store/sqlite-store"
import type { Layer } from "effect"
import { Data, Effect, Either, Redacted } from "effect"
import * as Fs from "node:fs"

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
 * Reads `memory`, `sqlite:<path>` or `postgres://...`; `Left` with the reason
 * (never a PostgreSQL password) otherwise.
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
 * How a store is opened.
 *
 * @since 1.0.0
 * @category models
 */
export interface OpenOptions {
  /** Create a SQLite store where a previous one's files are left without its database (default `false`). */
  readonly create?: boolean | undefined
}

/**
 * The store ports at `location`; the PostgreSQL store is loaded on first use.
 *
 * @since 1.0.0
 * @category layers
 */
export const layer = (
  location: StoreLocation,
  options: OpenOptions = {}
): Layer.Layer<AnimalStore.StorePorts, StoreError.StoreError> =>
  location._tag === "Sqlite" && options.create === true
    ? SqliteStore.layer({ filename: location.filename, create: true })
    : stores.layer(location)

/**
 * A store a command on an existing store cannot use: `memory`, or one that does not exist yet.
 *
 * @since 1.0.0
 * @category errors
 */
export class StoreMissing extends Data.TaggedError("StoreMissing")<{ readonly message: string }> {}

const notCreated = "commands on an existing store never create one; `animal-store serve` does"

/**
 * Succeeds when `location` is a lasting store that exists (record 0044),
 * without creating anything; `memory` is refused.
 *
 * @since 1.0.0
 * @category constructors
 */
export const checkExists = (location: StoreLocation): Effect.Effect<void, StoreMissing | StoreError.StoreError> => {
  switch (location._tag) {
    case "Memory":
      return Effect.fail(
        new StoreMissing({
          message: "the memory store holds nothing outside a running server: use --store sqlite:<path> or postgres://..."
        })
      )
    case "Sqlite":
      return Effect.suspend(() => {
        const stat = Fs.statSync(location.filename, { throwIfNoEntry: false })
        return stat === undefined
          ? Effect.fail(new StoreMissing({ message: `no store at ${format(location)} (${notCreated})` }))
          : stat.isFile()
          ? Effect.void
          : Effect.fail(new StoreMissing({ message: `${format(location)} is not a file` }))
      })
    case "Postgres":
      return Effect.scoped(Effect.gen(function*() {
        const { PostgresMigrations, PostgresStore } = yield* Effect.promise(() => import("@animal-store/postgres-store"))
        const client = yield* PostgresStore.makeClient({ url: Redacted.value(location.url), maxConnections: 1 })
        const rows = yield* client.unsafe<{ readonly found: string | null }>(
          "SELECT to_regclass($1)::text AS found",
          [`public.${PostgresMigrations.table}`]
        ).pipe(Effect.mapError((error) => new StoreError.StoreError({ reason: "Unavailable", message: error.message })))
        if (rows[0]?.found == null) {
          return yield* new StoreMissing({ message: `no store in the database of ${format(location)} (${notCreated})` })
        }
      }))
  }
}
