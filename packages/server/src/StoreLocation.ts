/**
 * Where the standalone server and the CLI keep their data: `memory` (gone
 * when the process ends), `sqlite:<path>` (a SQLite file, created with its
 * folder: several processes on one machine) or
 * `postgres://user:password@host:port/db` (a PostgreSQL database: several
 * processes on several machines). The default is
 * `sqlite:./data/animal-store.db`.
 *
 * A PostgreSQL URL holds a password: it is kept `Redacted`, and `format`
 * shows it as `***`.
 *
 * @since 1.0.0
 */
import type { AnimalStore, StoreError } from "@animal-store/core"
import { MemoryStore } from "@animal-store/memory-store"
import * as PostgresUrl from "@animal-store/postgres-store/PostgresUrl"
import { SqliteStore } from "@animal-store/sqlite-store"
import { Effect, Either, Layer, Redacted } from "effect"

/**
 * @since 1.0.0
 * @category models
 */
export type StoreLocation =
  | { readonly _tag: "Memory" }
  | { readonly _tag: "Sqlite"; readonly filename: string }
  | {
    readonly _tag: "Postgres"
    readonly url: Redacted.Redacted<string>
    /** The most connections of the pool (default: the store's, 10). */
    readonly maxConnections?: number | undefined
    /** Statement timeout in milliseconds, 0 for none (default: the store's, 5000). */
    readonly statementTimeout?: number | undefined
  }

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
export const parse = (value: string): Either.Either<StoreLocation, string> => {
  if (value === "memory") return Either.right({ _tag: "Memory" })
  if (value.startsWith("sqlite:") && value.length > "sqlite:".length) {
    return Either.right({ _tag: "Sqlite", filename: value.slice("sqlite:".length) })
  }
  if (/^postgres(ql)?:/.test(value)) {
    return PostgresUrl.isValid(value)
      ? Either.right({ _tag: "Postgres", url: Redacted.make(value) })
      : Either.left(`expected postgres://user:password@host:port/database, got ${PostgresUrl.redact(value)}`)
  }
  return Either.left(`expected memory, sqlite:<path> or postgres://user:password@host:port/database, got "${value}"`)
}

/**
 * The text form, as `parse` reads it, with a PostgreSQL password as `***`.
 *
 * @since 1.0.0
 * @category conversions
 */
export const format = (location: StoreLocation): string =>
  location._tag === "Memory"
    ? "memory"
    : location._tag === "Sqlite"
    ? `sqlite:${location.filename}`
    : PostgresUrl.redact(Redacted.value(location.url))

/**
 * The store ports at `location` (with its cursor secret). The PostgreSQL store is loaded on
 * first use (it is a chunk of its own in the bundled command).
 *
 * @since 1.0.0
 * @category layers
 */
export const layer = (location: StoreLocation): Layer.Layer<AnimalStore.StorePorts, StoreError.StoreError> => {
  switch (location._tag) {
    case "Memory":
      return MemoryStore.layer
    case "Sqlite":
      return SqliteStore.layer({ filename: location.filename })
    case "Postgres":
      return Layer.unwrapEffect(
        Effect.map(
          Effect.promise(() => import("@animal-store/postgres-store")),
          ({ PostgresStore }) =>
            PostgresStore.layer({
              url: location.url,
              maxConnections: location.maxConnections,
              statementTimeout: location.statementTimeout === undefined ? undefined : `${location.statementTimeout} millis`
            })
        )
      )
  }
}
