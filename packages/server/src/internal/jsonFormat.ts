/**
 * The format of the server's JSON log lines: `Logger.jsonLogger`'s without the runtime's internals
 * (no fiber id, no empty annotation or span maps). It needs `effect` alone: the supervisor can use it.
 *
 * @internal
 */
import { Inspectable, Layer, Logger } from "effect"

const errorToJSON = (u: unknown): unknown =>
  u instanceof Error && !("toJSON" in u) ? { ...u, name: u.name, message: u.message } : u

/** A log line as JSON: message, level, time, then the cause, annotations and spans when there are any. @internal */
export const format: Logger.Logger<unknown, string> = Logger.map(Logger.structuredLogger, (log) => {
  const line: Record<string, unknown> = {
    message: Array.isArray(log.message) ? log.message.map(errorToJSON) : errorToJSON(log.message),
    logLevel: log.logLevel,
    timestamp: log.timestamp
  }
  if (log.cause !== undefined) line.cause = log.cause
  for (const _ in log.annotations) {
    line.annotations = log.annotations
    break
  }
  for (const _ in log.spans) {
    line.spans = log.spans
    break
  }
  return Inspectable.stringifyCircular(line)
})

/** `format` with `console.log` in place of the default logger (as `Logger.json`). @internal */
export const layer: Layer.Layer<never> = Logger.replace(Logger.defaultLogger, Logger.withConsoleLog(format))
