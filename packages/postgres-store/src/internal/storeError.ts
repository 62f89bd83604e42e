import type { StoreError } from "@animal-store/core"
import { SqlStoreError } from "@animal-store/sql-store"
import type { SqlError } from "@effect/sql/SqlError"
import type { Effect } from "effect"

const unreachable = "the database server cannot be reached"

/**
 * PostgreSQL's table: SQLSTATEs and Node error codes (`ECONNREFUSED`), and
 * what the pg driver says when a connection goes away without a code. A
 * connection that cannot be made or was lost is "Unavailable". The messages
 * never carry a connection string (the driver's errors do not).
 *
 * @internal
 */
export const classifier = SqlStoreError.make({
  isCode: (code) => code.length > 0,
  rules: [
    // ENOENT: a unix socket that is not there (the server is down).
    { code: /^(ECONNREFUSED|ECONNRESET|ETIMEDOUT|EHOSTUNREACH|ENETUNREACH|ENOTFOUND|EAI_AGAIN|EPIPE|ENOENT)$/, reason: "Unavailable", hint: unreachable },
    // Class 08: connection exception; 57P01..57P05: the server is shutting down, restarting or starting.
    { code: /^(08|57P0[1-5]$)/, reason: "Unavailable", hint: unreachable },
    { code: /^53300$/, reason: "Unavailable", hint: "the database server has no connection left (max_connections)" },
    { code: /^53/, reason: "Unavailable", hint: "the database server is out of resources" },
    { code: /^57014$/, reason: "Unavailable", hint: "the statement was cancelled (statement timeout)" },
    { code: /^55P03$/, reason: "Unavailable", hint: "a lock was not granted in time (lock timeout)" },
    { code: /^(40001|40P01)$/, reason: "Unavailable", hint: "the transaction conflicted with another one" },
    { code: /^(28P01|28000)$/, reason: "Unavailable", hint: "the database refused the credentials" },
    { code: /^3D000$/, reason: "Unavailable", hint: "the database does not exist" },
    { code: /^25006$/, reason: "ReadOnly", hint: "the database is read-only (a standby, or default_transaction_read_only)" },
    { code: /^42501$/, reason: "ReadOnly", hint: "the database user lacks a privilege the store needs" },
    { code: /^XX/, reason: "Corrupt", hint: "PostgreSQL reported an internal error" },
    {
      message:
        /Connection terminated|connection timeout|timeout exceeded when trying to connect|Query read timeout|Client has encountered a connection error|Connection ended|not queryable|Failed to acquire connection|PgClient: (Failed to connect|Connection timed out)|socket hang up|ECONNRESET|ECONNREFUSED|EPIPE/i,
      reason: "Unavailable",
      hint: "the connection to the database server failed"
    }
  ],
  hints: { Unavailable: unreachable, Unknown: "PostgreSQL reported an error" }
})

/** @internal */
export const fromCause = (doing: string, cause: unknown, fallback?: SqlStoreError.Reason): StoreError.StoreError =>
  SqlStoreError.fromCause(classifier, doing, cause, fallback)

/** @internal */
export const mapStoreError = (
  doing: string
): <A, R>(self: Effect.Effect<A, SqlError | StoreError.StoreError, R>) => Effect.Effect<A, StoreError.StoreError, R> =>
  SqlStoreError.mapError(classifier, doing)
