/**
 * For speed only: every request counts, and a known state saves the read of its row in the write
 * transaction (one statement through the client instead of two; `bench/ports.ts`).
 *
 * The rate-limit states this connection last wrote, exact while no other
 * connection has committed since: SQLite's `PRAGMA data_version`, read once
 * per write transaction, while it holds the write lock, tells. States
 * written in a transaction that did not commit are forgotten.
 *
 * @internal
 */
import type { RateLimitStore } from "@animal-store/core"
import type { SqlError } from "@effect/sql/SqlError"
import { Effect } from "effect"
import type { Connection } from "./groupCommit.js"
import { values } from "./groupCommit.js"

/** The most states kept at once; going over forgets them all. */
const maxStates = 100_000

const dataVersionSql = "PRAGMA data_version"

/** The known states of one connection. */
export interface KnownStates {
  /** Checks, once per write transaction (inside it), that no other connection has committed since the states were written. */
  readonly check: (connection: Connection) => Effect.Effect<void, SqlError>
  /** The state of `subject` as this connection wrote it; `undefined` when unknown. */
  readonly get: (subject: string) => RateLimitStore.RateLimitState | undefined
  /** `subject` was written `state` in the open transaction. */
  readonly set: (subject: string, state: RateLimitStore.RateLimitState) => void
  /** The end of the transaction the calls before ran in. */
  readonly end: (committed: boolean) => void
}

/** @internal */
export const make = (): KnownStates => {
  const states = new Map<string, RateLimitStore.RateLimitState>()
  let version: number | undefined
  let checked = false
  return {
    check: (connection) =>
      checked ? Effect.void : Effect.map(values<readonly [number]>(connection, dataVersionSql), (rows) => {
        checked = true
        if (rows[0]![0] !== version) {
          states.clear()
          version = rows[0]![0]
        }
      }),
    get: (subject) => states.get(subject),
    set: (subject, state) => {
      if (states.size >= maxStates) states.clear()
      states.set(subject, state)
    },
    end: (committed) => {
      checked = false
      if (!committed) {
        states.clear()
        version = undefined
      }
    }
  }
}
