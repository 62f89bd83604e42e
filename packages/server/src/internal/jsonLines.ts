/**
 * The standalone server's log: Effect's JSON lines (`Logger.jsonLogger`, the
 * format unchanged), gathered over a turn of the event loop and written to
 * stdout in as few calls as hold at most `maxWrite` bytes of whole lines
 * each, instead of one `console.log` per line. With the access
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

/**
 * The most bytes in one write: POSIX's `PIPE_BUF` on Linux. The workers of
 * `serve --workers N` share one stdout; into a pipe, a write of at most this
 * many bytes is never interleaved with another process's (Node writes to a
 * pipe or a file on stdout synchronously, one write(2) per call).
 *
 * @internal
 */
export const maxWrite = 4096

/**
 * Lines gathered over a turn of the event loop and written to `stream` in
 * as few calls as can each hold at most `limit` bytes of whole lines (a
 * longer line is written alone).
 */
const makeBatch = (stream: NodeJS.WritableStream, limit: number) => {
  const full: Array<string> = []
  let pending = ""
  let bytes = 0
  let scheduled = false
  const flush = () => {
    scheduled = false
    if (pending !== "") {
      full.push(pending)
      pending = ""
      bytes = 0
    }
    for (let i = 0; i < full.length; i++) stream.write(full[i]!)
    full.length = 0
  }
  process.once("exit", flush)
  return (line: string): void => {
    const text = line + "\n"
    const size = Buffer.byteLength(text)
    if (pending !== "" && bytes + size > limit) {
      full.push(pending)
      pending = ""
      bytes = 0
    }
    pending += text
    bytes += size
    if (!scheduled) {
      scheduled = true
      setImmediate(flush)
    }
  }
}

/** The lines of stdout: the logger's and the access log's, in one order. */
const stdout = makeBatch(process.stdout, maxWrite)

/** A logger that appends each JSON line to the next batch written to `stream`. */
export const make = (stream: NodeJS.WritableStream = process.stdout, limit = maxWrite): Logger.Logger<unknown, void> => {
  const append = stream === process.stdout ? stdout : makeBatch(stream, limit)
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
export const accessLog = (stream: NodeJS.WritableStream = process.stdout, limit = maxWrite): AccessLog.Writer => {
  const append = stream === process.stdout ? stdout : makeBatch(stream, limit)
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
