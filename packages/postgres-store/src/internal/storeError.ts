import { StoreError } from "@animal-store/core"
import type { SqlError } from "@effect/sql/SqlError"
import { Effect, Option } from "effect"

type Reason = StoreError.StoreError["reason"]

/** The first `code` found along the chain: a SQLSTATE (five characters) or a Node error code (`ECONNREFUSED`). */
const codeOf = (u: unknown): string | undefined => StoreError.codeAlongCauses(u, (code) => code.length > 0)

const messagesOf = StoreError.messagesAlongCauses

// What the pg driver says when the connection goes away or cannot be made,
// without a code of its own.
const connectionMessage =
  /Connection terminated|connection timeout|timeout exceeded when trying to connect|Query read timeout|Client has encountered a connection error|Connection ended|not queryable|Failed to acquire connection|PgClient: (Failed to connect|Connection timed out)|socket hang up|ECONNRESET|ECONNREFUSED|EPIPE/i

const nodeUnavailable = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EPIPE",
  "ENOENT" // a unix socket that is not there (the server is down)
])

const classify = (code: string | undefined, message: string, fallback: Reason): readonly [Reason, string] => {
  if (code !== undefined) {
    if (nodeUnavailable.has(code)) return ["Unavailable", "the database server cannot be reached"]
    // Class 08: connection exception; 57P01..57P05: the server is shutting down, restarting or starting.
    if (code.startsWith("08") || /^57P0[1-5]$/.test(code)) {
      return ["Unavailable", "the database server cannot be reached"]
    }
    if (code === "53300") return ["Unavailable", "the database server has no connection left (max_connections)"]
    if (code.startsWith("53")) return ["Unavailable", "the database server is out of resources"]
    if (code === "57014") return ["Unavailable", "the statement was cancelled (statement timeout)"]
    if (code === "55P03") return ["Unavailable", "a lock was not granted in time (lock timeout)"]
    if (code === "40001" || code === "40P01") return ["Unavailable", "the transaction conflicted with another one"]
    if (code === "28P01" || code === "28000") return ["Unavailable", "the database refused the credentials"]
    if (code === "3D000") return ["Unavailable", "the database does not exist"]
    if (code === "25006") return ["ReadOnly", "the database is read-only (a standby, or default_transaction_read_only)"]
    if (code === "42501") return ["ReadOnly", "the database user lacks a privilege the store needs"]
    if (code.startsWith("XX")) return ["Corrupt", "PostgreSQL reported an internal error"]
  }
  if (connectionMessage.test(message)) return ["Unavailable", "the connection to the database server failed"]
  return [fallback, fallback === "Unavailable" ? "the database server cannot be reached" : "PostgreSQL reported an error"]
}

/**
 * The `StoreError` of a PostgreSQL failure: its reason from the SQLSTATE or
 * the Node error code found along the cause chain (a connection that cannot
 * be made or was lost is "Unavailable"), its message naming what was done.
 * The message never carries a connection string (the driver's errors do not).
 *
 * @internal
 */
export const fromCause = (doing: string, cause: unknown, fallback: Reason = "Unknown"): StoreError.StoreError => {
  const code = codeOf(cause)
  const messages = messagesOf(cause)
  const [reason, hint] = classify(code, messages, fallback)
  return new StoreError.StoreError({ reason, message: `${doing}: ${hint} (${code ?? "error"}: ${messages})`, cause })
}

const isDriverFailure = (u: unknown): boolean =>
  StoreError.causeChain(u).some((link) =>
    (link as { readonly _tag?: unknown })._tag === "SqlError" || typeof (link as { readonly code?: unknown }).code === "string"
  ) || connectionMessage.test(messagesOf(u))

/**
 * Maps the failures of a SQL effect, and the defects @effect/sql raises for
 * failures it does not type (a `COMMIT` or `ROLLBACK` on a lost connection),
 * to `StoreError`. Other defects stay defects.
 *
 * @internal
 */
export const mapStoreError = (doing: string) =>
<A, R>(self: Effect.Effect<A, SqlError | StoreError.StoreError, R>): Effect.Effect<A, StoreError.StoreError, R> =>
  self.pipe(
    Effect.mapError((e) => e._tag === "StoreError" ? e : fromCause(doing, e)),
    Effect.catchSomeDefect((defect) =>
      isDriverFailure(defect) ? Option.some(Effect.fail(fromCause(doing, defect))) : Option.none()
    )
  )
