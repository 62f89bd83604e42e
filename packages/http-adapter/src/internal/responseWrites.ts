/**
 * For speed only (record 0015): a response answered while its request's listener runs is written
 * at the end of the turn, with the others of the turn.
 *
 * @internal
 */
import type * as Http from "node:http"
import type { Exit } from "effect"
import type * as HttpExchange from "../HttpExchange.js"

/** Writes a response on its Node response. */
export type Write = (to: Http.ServerResponse, exit: Exit.Exit<HttpExchange.Response, unknown>) => void

/** @internal */
export interface ResponseWrites {
  /** Runs a listener: the responses it answers are written at the end of the turn. */
  readonly listen: (listener: () => void) => void
  /** Writes a response with `write`: at the end of the turn when answered in a listener, else at once. */
  readonly write: Write
}

/** @internal */
export const make = (write: Write): ResponseWrites => {
  let inListener = false
  let pending: Array<readonly [Http.ServerResponse, Exit.Exit<HttpExchange.Response, unknown>]> = []
  const flush = () => {
    const writes = pending
    pending = []
    for (const [to, exit] of writes) write(to, exit)
  }
  return {
    listen: (listener) => {
      const outer = inListener
      inListener = true
      try {
        listener()
      } finally {
        inListener = outer
      }
    },
    write: (to, exit) => {
      if (!inListener) return write(to, exit)
      if (pending.length === 0) setImmediate(flush)
      pending.push([to, exit])
    }
  }
}
