/**
 * The standalone server's log: Effect's JSON lines (`Logger.jsonLogger`, the
 * format unchanged), gathered over a turn of the event loop and written to
 * stdout in one call, instead of one `console.log` per line. With the access
 * log on (the default) every request logs a line; `pnpm bench` measures the
 * server as shipped, access log on.
 *
 * Lines still pending when the process exits are written then.
 *
 * @internal
 */
import { AccessLog, HttpExchange } from "@animal-store/http-adapter"
import type { FiberId } from "effect"
import { Effect, Layer, Logger } from "effect"

/** Lines gathered over a turn of the event loop and written to `stream` in one call. */
const makeBatch = (stream: NodeJS.WritableStream) => {
  let pending = ""
  let scheduled = false
  const flush = () => {
    scheduled = false
    if (pending === "") return
    const text = pending
    pending = ""
    stream.write(text)
  }
  process.once("exit", flush)
  return (line: string): void => {
    pending += line + "\n"
    if (!scheduled) {
      scheduled = true
      setImmediate(flush)
    }
  }
}

/** The lines of stdout: the logger's and the access log's, in one order. */
const stdout = makeBatch(process.stdout)

/** A logger that appends each JSON line to the next batch written to `stream`. */
export const make = (stream: NodeJS.WritableStream = process.stdout): Logger.Logger<unknown, void> => {
  const append = stream === process.stdout ? stdout : makeBatch(stream)
  return Logger.make((options) => append(Logger.jsonLogger.log(options)))
}

/** `Date#toISOString` of the last time asked, as requests answered in one millisecond share it. */
const makeTimestamps = () => {
  let at = Number.NaN
  let text = ""
  return (date: Date): string => {
    const time = date.getTime()
    if (time !== at) {
      at = time
      text = date.toISOString()
    }
    return text
  }
}

const timestampOf = makeTimestamps()
const quote = HttpExchange.jsonString
/** A number as JSON writes it (`null` when not finite). */
const jsonNumber = (n: number): string => Number.isFinite(n) ? String(n) : "null"
const head = `{"message":${quote(AccessLog.message)},"logLevel":"INFO","timestamp":"`
const probeHead = `{"message":${quote(AccessLog.message)},"logLevel":"DEBUG","timestamp":"`

/**
 * The access-log line of a request, as `Logger.jsonLogger` writes an
 * `Effect.logInfo(AccessLog.message)` (a probe's: `Effect.logDebug`) with the
 * entry as annotations (the same fields in the same order), without going
 * through the logger: written as
 * text, which costs about a third of `JSON.stringify` of the same object.
 *
 * @internal
 */
export const accessLine = (entry: AccessLog.Entry, fiberId: FiberId.Runtime, date: Date): string =>
  `${entry.probe === true ? probeHead : head}${timestampOf(date)}","annotations":{"method":${
    quote(entry.method)
  },"path":${quote(entry.path)},"status":${jsonNumber(entry.status)},"durationMs":${
    jsonNumber(entry.durationMs)
  },"client":${quote(entry.client)}${entry.keyId === undefined ? "" : `,"keyId":${quote(entry.keyId)}`}${
    entry.requestId === undefined ? "" : `,"requestId":${quote(entry.requestId)}`
  }},"spans":{},"fiberId":"#${fiberId.id}"}`

/**
 * The standalone server's access log: `accessLine`s in the batches of stdout.
 *
 * @internal
 */
export const accessLog = (stream: NodeJS.WritableStream = process.stdout): AccessLog.Writer => {
  const append = stream === process.stdout ? stdout : makeBatch(stream)
  return (entry, fiberId, date) => append(accessLine(entry, fiberId, date))
}

/**
 * `make()` in place of the default logger.
 *
 * @internal
 */
export const layer: Layer.Layer<never> = Layer.unwrapEffect(
  Effect.sync(() => Logger.replace(Logger.defaultLogger, make()))
)
