import type { StoreError } from "@animal-store/core"
import { SqlStoreError } from "@animal-store/sql-store"

/**
 * SQLite's table: the result code found along the cause chain
 * (`SQLITE_BUSY`, `SQLITE_IOERR_WRITE`...) gives the reason.
 *
 * @internal
 */
export const classifier = SqlStoreError.make({
  isCode: (code) => code.startsWith("SQLITE_") || code === "ERR_DLOPEN_FAILED",
  rules: [
    {
      code: /^ERR_DLOPEN_FAILED$/,
      reason: "Unavailable",
      hint: `the SQLite driver's native module (better-sqlite3) cannot be loaded by this Node.js (${process.version}): ` +
        "it was built for another Node.js version or platform; rebuild it with `pnpm rebuild better-sqlite3` " +
        "(`npm rebuild better-sqlite3` in an npm install)"
    },
    { code: /^SQLITE_READONLY/, reason: "ReadOnly", hint: "the database file is read-only, and the store must write to it" },
    {
      code: /^SQLITE_CORRUPT|^SQLITE_NOTADB$/,
      reason: "Corrupt",
      hint: "the file is not a valid SQLite database (corrupt, or another kind of file)"
    },
    {
      code: /^SQLITE_(BUSY|LOCKED)/,
      reason: "Unavailable",
      hint: "another connection held the database locked for longer than the busy timeout"
    },
    { code: /^SQLITE_CANTOPEN|^SQLITE_(PERM|AUTH)$/, reason: "Unavailable", hint: "the database file cannot be opened" },
    { code: /^SQLITE_FULL$/, reason: "Unavailable", hint: "the disk holding the database is full" },
    {
      code: /^SQLITE_IOERR/,
      reason: "Unavailable",
      hint: "the database file could not be read or written (I/O error or full disk)"
    },
    { code: /./, reason: "Unknown", hint: "SQLite reported an error" }
  ],
  hints: {
    Unavailable: "the database file cannot be opened",
    ReadOnly: "the database file is read-only, and the store must write to it",
    Corrupt: "the file is not a valid SQLite database (corrupt, or another kind of file)",
    Incompatible: "the database schema does not match this version of the code",
    Unknown: "SQLite reported an error"
  }
})

/** The `StoreError` of a SQLite failure, its message naming what was being done. */
export const fromCause: (doing: string, cause: unknown, fallback?: SqlStoreError.Reason) => StoreError.StoreError = (
  doing,
  cause,
  fallback
) => SqlStoreError.fromCause(classifier, doing, cause, fallback)

/** Maps the SQLite failures of an effect, and the defects that are SQLite failures, to `StoreError`. */
export const mapStoreError: (doing: string) => ReturnType<typeof SqlStoreError.mapError> = (doing) =>
  SqlStoreError.mapError(classifier, doing)
