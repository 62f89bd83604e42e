/**
 * A lost database is not made again in silence (record 0044): a database file that is missing while
 * its `-created` marker, `-wal` or `-shm` is there is refused unless `create` asks for a new store.
 *
 * @internal
 */
import { StoreError } from "@animal-store/core"
import { Effect } from "effect"
import * as Fs from "node:fs"
import * as Path from "node:path"

/** The marker's name: the database file's, with this suffix. @internal */
export const markerSuffix = "-created"

const exists = (file: string): boolean => Fs.statSync(file, { throwIfNoEntry: false }) !== undefined

/** Creates `file` with `text` unless it exists; any failure is left to SQLite to report when it opens the database. */
const createIfMissing = (file: string, text: string): void => {
  try {
    Fs.writeFileSync(file, text, { flag: "wx" })
  } catch {
    // EEXIST: another process made it first; anything else: SQLite's open fails with its own reason.
  }
}

const markerText = (database: string) =>
  `Animal Store keeps its SQLite database ${Path.basename(database)} in this folder (marked ${
    new Date().toISOString()
  }): without it, the store is not created again unless asked to (animal-store serve --create).\n`

/**
 * Checks the file of a store about to be opened. The file is there: its
 * marker is left if missing. It is not, nor any leftover: it is created
 * empty (a new database for SQLite), then the marker, so that a process
 * opening it at the same time finds the database before the marker. It is
 * not but a leftover is: fails, unless `create`.
 *
 * @internal
 */
export const check = (filename: string, create: boolean): Effect.Effect<void, StoreError.StoreError> =>
  Effect.suspend(() => {
    if (filename === ":memory:" || filename === "") return Effect.void
    const marker = `${filename}${markerSuffix}`
    if (exists(filename)) return Effect.sync(() => createIfMissing(marker, markerText(filename)))
    const left = [marker, `${filename}-wal`, `${filename}-shm`].filter(exists)
    if (left.length > 0 && !create) {
      return Effect.fail(
        new StoreError.StoreError({
          reason: "Unavailable",
          message: `the SQLite database "${filename}" is gone, but ${
            left.map((file) => `"${file}"`).join(", ")
          } of a previous store is still there: restore the database, or open it with create ` +
            `(animal-store serve --create) to start a new, empty store`
        })
      )
    }
    return Effect.sync(() => {
      createIfMissing(filename, "")
      if (exists(filename)) createIfMissing(marker, markerText(filename))
    })
  })
