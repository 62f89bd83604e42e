/**
 * One structured log line per request: method, path with its query string,
 * status, duration, client address, the id of the key it was counted
 * against, its request id, and its trace id when it is traced. Never the
 * secret. By default it is an
 * Effect log at level Info (a probe's at Debug) with these fields as
 * annotations, so the host's logger decides the
 * format; a host that writes the lines itself passes a `Writer` instead (the
 * standalone server does: Effect's JSON line format, without the logger's
 * per-line work, which was about a tenth of the CPU of a request in
 * `pnpm bench --only http`).
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
 * Writes the line of one request: its entry and when it was answered.
 * Called once per request, on the request's fiber; it
 * must not block. The adapter calls it only for the lines the fiber's
 * minimum log level lets through (read when the handler is made).
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
