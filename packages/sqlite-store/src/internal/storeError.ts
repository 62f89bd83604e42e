import { StoreError } from "@animal-store/core"
import type { SqlError } from "@effect/sql/SqlError"
import { Effect, Option } from "effect"

type Reason = StoreError.StoreError["reason"]

const sqliteCode = (u: unknown): string | undefined => StoreError.codeAlongCauses(u, (code) => code.startsWith("SQLITE_"))

const hints: { readonly [R in Reason]: string } = {
  Unavailable: "the database file cannot be opened",
  ReadOnly: "the database file is read-only, and the store must write to it",
  Corrupt: "the file is not a valid SQLite database (corrupt, or another kind of file)",
  Incompatible: "the database schema does not match this version of the code",
  Unknown: "SQLite reported an error"
}

const classify = (code: string | undefined, fallback: Reason): readonly [Reason, string] => {
  if (code === undefined) return [fallback, hints[fallback]]
  if (code.startsWith("SQLITE_READONLY")) return ["ReadOnly", hints.ReadOnly]
  if (code.startsWith("SQLITE_CORRUPT") || code === "SQLITE_NOTADB") return ["Corrupt", hints.Corrupt]
  if (code.startsWith("SQLITE_BUSY") || code.startsWith("SQLITE_LOCKED")) {
    return ["Unavailable", "another connection held the database locked for longer than the busy timeout"]
  }
  if (code.startsWith("SQLITE_CANTOPEN") || code === "SQLITE_PERM" || code === "SQLITE_AUTH") {
    return ["Unavailable", hints.Unavailable]
  }
  if (code.startsWith("SQLITE_IOERR") || code === "SQLITE_FULL") {
    return ["Unavailable", "the database file could not be read or written (I/O error or full disk)"]
  }
  return ["Unknown", hints.Unknown]
}

/**
 * The `StoreError` of a SQLite failure: its reason from the SQLite result
 * code found along the cause chain, its message naming what was done.
 *
 * @internal
 */
export const fromCause = (doing: string, cause: unknown, fallback: Reason = "Unknown"): StoreError.StoreError => {
  const code = sqliteCode(cause)
  const [reason, hint] = classify(code, fallback)
  return new StoreError.StoreError({ reason, message: `${doing}: ${hint} (${code ?? "error"}: ${StoreError.messagesAlongCauses(cause)})`, cause })
}

const isSqliteFailure = (u: unknown): boolean => sqliteCode(u) !== undefined

/**
 * Maps the failures of a SQL effect, and the defects @effect/sql raises for
 * SQLite errors it does not type (committing, migrating), to `StoreError`.
 * Other defects stay defects.
 *
 * @internal
 */
export const mapStoreError = (doing: string) =>
<A, R>(self: Effect.Effect<A, SqlError | StoreError.StoreError, R>): Effect.Effect<A, StoreError.StoreError, R> =>
  self.pipe(
    Effect.mapError((e) => e._tag === "StoreError" ? e : fromCause(doing, e)),
    Effect.catchSomeDefect((defect) =>
      isSqliteFailure(defect) ? Option.some(Effect.fail(fromCause(doing, defect))) : Option.none()
    )
  )
