/**
 * For speed only (record 0015): the log's JSON lines written once a turn, in writes of at most
 * `maxWrite` bytes, not a `console.log` each; the access line written as text.
 *
 * @internal
 */
import { AccessLog, HttpExchange } from "@animal-store/http-adapter"
import { Effect, Layer, Logger } from "effect"
import { format } from "./jsonFormat.js"

/** The most bytes in one write: `PIPE_BUF`, so the workers' writes to one stdout pipe never interleave. @internal */
export const maxWrite = 4096

/** Lines gathered over a turn, written to `stream` in writes of at most `limit` bytes of whole lines. */
const makeBatch = (stream: NodeJS.WritableStream, limit: number) => {
  let pending = ""
  let bytes = 0
  const flush = () => {
    if (pending !== "") stream.write(pending)
    pending = ""
    bytes = 0
  }
  process.once("exit", flush)
  return (line: string): void => {
    const text = line + "\n"
    const size = Buffer.byteLength(text)
    if (pending === "") setImmediate(flush)
    else if (bytes + size > limit) flush()
    pending += text
    bytes += size
  }
}

/** The lines of stdout: the logger's and the access log's, in one order. */
const stdout = makeBatch(process.stdout, maxWrite)

/** A logger that appends each JSON line (`JsonFormat.format`) to the next batch written to `stream`. */
export const make = (stream: NodeJS.WritableStream = process.stdout, limit = maxWrite): Logger.Logger<unknown, void> => {
  const append = stream === process.stdout ? stdout : makeBatch(stream, limit)
  return Logger.make((options) => append(format.log(options)))
}

const quote = HttpExchange.jsonString
/** A number as JSON writes it (`null` when not finite). */
const jsonNumber = (n: number): string => Number.isFinite(n) ? String(n) : "null"
const head = `{"message":${quote(AccessLog.message)},"logLevel":"INFO","timestamp":"`
const probeHead = `{"message":${quote(AccessLog.message)},"logLevel":"DEBUG","timestamp":"`

/**
 * The access line as `JsonFormat.format` writes the access log's entry, built as text. @internal
 */
export const accessLine = (entry: AccessLog.Entry, date: Date): string =>
  `${entry.probe === true ? probeHead : head}${date.toISOString()}","annotations":{"method":${
    quote(entry.method)
  },"path":${quote(entry.path)},"status":${jsonNumber(entry.status)},"durationMs":${
    jsonNumber(entry.durationMs)
  },"client":${quote(entry.client)}${entry.keyId === undefined ? "" : `,"keyId":${quote(entry.keyId)}`}${
    entry.requestId === undefined ? "" : `,"requestId":${quote(entry.requestId)}`
  }${entry.traceId === undefined ? "" : `,"traceId":${quote(entry.traceId)}`}}}`

/** The standalone server's access log: `accessLine`s in the batches of stdout. @internal */
export const accessLog = (stream: NodeJS.WritableStream = process.stdout, limit = maxWrite): AccessLog.Writer => {
  const append = stream === process.stdout ? stdout : makeBatch(stream, limit)
  return (entry, date) => append(accessLine(entry, date))
}

/** `make()` in place of the default logger. @internal */
export const layer: Layer.Layer<never> = Layer.unwrapEffect(
  Effect.sync(() => Logger.replace(Logger.defaultLogger, make()))
)
