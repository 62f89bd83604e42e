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
import { Effect, Layer, Logger } from "effect"

/** A logger that appends each JSON line to the next batch written to `stream`. */
export const make = (stream: NodeJS.WritableStream = process.stdout): Logger.Logger<unknown, void> => {
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
  return Logger.make((options) => {
    pending += Logger.jsonLogger.log(options) + "\n"
    if (!scheduled) {
      scheduled = true
      setImmediate(flush)
    }
  })
}

/**
 * `make()` in place of the default logger.
 *
 * @internal
 */
export const layer: Layer.Layer<never> = Layer.unwrapEffect(
  Effect.sync(() => Logger.replace(Logger.defaultLogger, make()))
)
