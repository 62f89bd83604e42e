/**
 * Where the standalone server and the CLI keep their data: `memory` (gone
 * when the process ends) or `sqlite:<path>` (a SQLite file, created with its
 * folder). The default is `sqlite:./data/animal-store.db`.
 *
 * @since 1.0.0
 */
import type { AnimalStore, StoreError } from "@animal-store/core"
import { MemoryStore } from "@animal-store/memory-store"
import { SqliteStore } from "@animal-store/sqlite-store"
import { Either } from "effect"
import type { Layer } from "effect"

/**
 * @since 1.0.0
 * @category models
 */
export type StoreLocation =
  | { readonly _tag: "Memory" }
  | { readonly _tag: "Sqlite"; readonly filename: string }

/**
 * `sqlite:./data/animal-store.db`.
 *
 * @since 1.0.0
 * @category constants
 */
export const defaultLocation: StoreLocation = { _tag: "Sqlite", filename: "./data/animal-store.db" }

/**
 * Reads `memory` or `sqlite:<path>`; `Left` with the reason otherwise.
 *
 * @since 1.0.0
 * @category constructors
 */
export const parse = (value: string): Either.Either<StoreLocation, string> => {
  if (value === "memory") return Either.right({ _tag: "Memory" })
  if (value.startsWith("sqlite:") && value.length > "sqlite:".length) {
    return Either.right({ _tag: "Sqlite", filename: value.slice("sqlite:".length) })
  }
  return Either.left(`expected memory or sqlite:<path>, got "${value}"`)
}

/**
 * The text form, as `parse` reads it.
 *
 * @since 1.0.0
 * @category conversions
 */
export const format = (location: StoreLocation): string =>
  location._tag === "Memory" ? "memory" : `sqlite:${location.filename}`

/**
 * The three store ports at `location`.
 *
 * @since 1.0.0
 * @category layers
 */
export const layer = (location: StoreLocation): Layer.Layer<AnimalStore.StorePorts, StoreError.StoreError> =>
  location._tag === "Memory" ? MemoryStore.layer : SqliteStore.layer({ filename: location.filename })
