/**
 * One structured log line per request: method, path (without the query
 * string), status, duration, client address and the id of the key it was
 * admitted with. Never the secret. It is an Effect log at level Info with
 * these fields as annotations, so the host's logger decides the format (the
 * standalone server writes JSON lines).
 *
 * @since 1.0.0
 */
import { Effect } from "effect"

/**
 * @since 1.0.0
 * @category models
 */
export interface Entry {
  readonly method: string
  readonly path: string
  readonly status: number
  readonly durationMs: number
  readonly client: string
  readonly keyId: string | undefined
}

/**
 * The message of every access-log line.
 *
 * @since 1.0.0
 * @category constants
 */
export const message = "http.request"

/**
 * Logs one request.
 *
 * @since 1.0.0
 * @category constructors
 */
export const log = (entry: Entry): Effect.Effect<void> =>
  Effect.logInfo(message).pipe(
    Effect.annotateLogs({
      method: entry.method,
      path: entry.path,
      status: entry.status,
      durationMs: entry.durationMs,
      client: entry.client,
      ...(entry.keyId === undefined ? {} : { keyId: entry.keyId })
    })
  )
