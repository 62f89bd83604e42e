/**
 * One structured log line per request (never the secret): an Effect log by
 * default, or the host's `Writer` (records 0028, 0050).
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
  /** The request target's path and query string (`/v1/pets?limit=5`). */
  readonly path: string
  readonly status: number
  readonly durationMs: number
  readonly client: string
  readonly keyId: string | undefined
  /** Its `X-Request-Id` (`RequestId`); the adapter always sets it. */
  readonly requestId?: string | undefined
  /** The trace id of its server span, when the host runs with tracing on. */
  readonly traceId?: string | undefined
  /** A probe's line (`/healthz`, `/readyz`): at level Debug, not Info. */
  readonly probe?: true | undefined
}

/**
 * The message of every access-log line.
 *
 * @since 1.0.0
 * @category constants
 */
export const message = "http.request"

/**
 * Writes the line of one request on its fiber (it must not block); called only
 * for lines the minimum log level lets through.
 *
 * @since 1.0.0
 * @category models
 */
export type Writer = (entry: Entry, date: Date) => void

/**
 * Logs one request with the host's Effect logger.
 *
 * @since 1.0.0
 * @category constructors
 */
export const log = (entry: Entry): Effect.Effect<void> =>
  (entry.probe === true ? Effect.logDebug(message) : Effect.logInfo(message)).pipe(
    Effect.annotateLogs({
      method: entry.method,
      path: entry.path,
      status: entry.status,
      durationMs: entry.durationMs,
      client: entry.client,
      ...(entry.keyId === undefined ? {} : { keyId: entry.keyId }),
      ...(entry.requestId === undefined ? {} : { requestId: entry.requestId }),
      ...(entry.traceId === undefined ? {} : { traceId: entry.traceId })
    })
  )

/**
 * Logs one request with `writer`.
 *
 * @since 1.0.0
 * @category constructors
 */
export const write = (writer: Writer, entry: Entry, answeredAt: number): Effect.Effect<void> =>
  Effect.sync(() => writer(entry, new Date(answeredAt)))
