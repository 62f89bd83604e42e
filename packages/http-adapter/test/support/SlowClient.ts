/**
 * A client on a raw socket that sends its request slowly: the start at once,
 * the rest a few bytes at a time, until it is all sent or the server closes
 * the connection; or all of it at once.
 */
import { Effect } from "effect"
import * as Net from "node:net"

export interface SlowRequest {
  /** Sent as soon as the connection is open. */
  readonly atOnce?: string
  /** Sent `chunkSize` bytes (default 1) every `intervalMs`. */
  readonly slowly: string
  readonly intervalMs: number
  readonly chunkSize?: number
}

export interface SlowOutcome {
  /** Everything the server sent before it closed the connection. */
  readonly received: string
  /** Bytes of `slowly` written before the server closed the connection. */
  readonly sentSlowly: number
  /** Milliseconds from the connection to its close. */
  readonly elapsedMs: number
}

/** Sends `request` slowly to `origin` and resolves when the server closes the connection. */
export const send = (origin: string, request: SlowRequest): Effect.Effect<SlowOutcome> =>
  Effect.async<SlowOutcome>((resume) => {
    const url = new URL(origin)
    const slowly = Buffer.from(request.slowly)
    const chunkSize = request.chunkSize ?? 1
    const started = performance.now()
    let sentSlowly = 0
    let received = ""
    let timer: NodeJS.Timeout | undefined
    const socket = Net.connect(Number(url.port), url.hostname, () => {
      if (request.atOnce !== undefined) socket.write(request.atOnce)
      timer = setInterval(() => {
        if (sentSlowly >= slowly.length || !socket.writable) return clearInterval(timer)
        socket.write(slowly.subarray(sentSlowly, sentSlowly + chunkSize))
        sentSlowly = Math.min(slowly.length, sentSlowly + chunkSize)
      }, request.intervalMs)
    })
    socket.on("data", (chunk) => (received += chunk.toString()))
    socket.on("error", () => {})
    socket.on("close", () => {
      clearInterval(timer)
      resume(Effect.succeed({ received, sentSlowly, elapsedMs: performance.now() - started }))
    })
    return Effect.sync(() => {
      clearInterval(timer)
      socket.destroy()
    })
  })

/** Sends `text` at once to `origin` and resolves with everything the server sends until it closes the connection. */
export const sendAtOnce = (origin: string, text: string): Effect.Effect<string> =>
  Effect.map(send(origin, { atOnce: text, slowly: "", intervalMs: 10 }), ({ received }) => received)

/** The status line and the JSON body of a raw HTTP/1.1 response. */
export const parseResponse = (raw: string): { readonly statusLine: string; readonly body: unknown } => {
  const headEnd = raw.indexOf("\r\n\r\n")
  return { statusLine: raw.slice(0, raw.indexOf("\r\n")), body: JSON.parse(raw.slice(headEnd + 4)) }
}
