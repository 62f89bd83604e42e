/** Raw HTTP/1.1 over a socket, for what `fetch` cannot send: bad requests, absolute-form targets, `Expect`. */
import { Effect } from "effect"
import * as Net from "node:net"

export interface RawResponse {
  readonly status: number
  readonly headers: Readonly<Record<string, string>>
  /** The body's bytes as latin1 text. */
  readonly body: string
}

/** A chunked body at the start of `raw`: its text and the length of its encoding, or `undefined` when incomplete. */
const dechunk = (raw: string): { readonly body: string; readonly length: number } | undefined => {
  let body = ""
  let at = 0
  for (;;) {
    const lineEnd = raw.indexOf("\r\n", at)
    if (lineEnd === -1) return undefined
    const size = parseInt(raw.slice(at, lineEnd), 16)
    if (size === 0) {
      const end = raw.indexOf("\r\n", lineEnd + 2)
      return end === -1 ? undefined : { body, length: end + 2 }
    }
    if (raw.length < lineEnd + 2 + size + 2) return undefined
    body += raw.slice(lineEnd + 2, lineEnd + 2 + size)
    at = lineEnd + 2 + size + 2
  }
}

/** The first response of `raw` and the length of its text, or `undefined` when it is not complete. */
const parseAt = (raw: string): { readonly response: RawResponse; readonly length: number } | undefined => {
  const headEnd = raw.indexOf("\r\n\r\n")
  if (headEnd === -1) return undefined
  const [statusLine, ...lines] = raw.slice(0, headEnd).split("\r\n")
  const headers: Record<string, string> = {}
  for (const line of lines) {
    const colon = line.indexOf(":")
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim()
  }
  const status = Number(statusLine!.split(" ")[1])
  const bodyless = status < 200 || status === 204 || status === 304
  if (!bodyless && headers["transfer-encoding"]?.toLowerCase() === "chunked") {
    const chunked = dechunk(raw.slice(headEnd + 4))
    return chunked === undefined
      ? undefined
      : { response: { status, headers, body: chunked.body }, length: headEnd + 4 + chunked.length }
  }
  const length = bodyless ? 0 : Number(headers["content-length"] ?? 0)
  const body = raw.slice(headEnd + 4, headEnd + 4 + length)
  // received as latin1: one character per byte
  return body.length < length ? undefined : { response: { status, headers, body }, length: headEnd + 4 + length }
}

/** The first response of `raw` (a 1xx included; a chunked body decoded), or `undefined` when it is not complete. */
export const parse = (raw: string): RawResponse | undefined => parseAt(raw)?.response

/** A connection: write to it, and wait for the next complete response. */
export interface Connection {
  readonly write: (data: string | Buffer) => Effect.Effect<void>
  /** The next response received (a `100 Continue` included). */
  readonly next: Effect.Effect<RawResponse>
  /** Everything received so far. */
  readonly received: () => string
  readonly closed: () => boolean
}

export const connect = (origin: string): Effect.Effect<Connection, never, import("effect").Scope.Scope> =>
  Effect.acquireRelease(
    Effect.async<Net.Socket>((resume) => {
      const url = new URL(origin)
      const socket = Net.connect(Number(url.port), url.hostname, () => resume(Effect.succeed(socket)))
    }),
    (socket) => Effect.sync(() => socket.destroy())
  ).pipe(Effect.map((socket) => {
    let received = ""
    let consumed = 0
    let closed = false
    const waiters: Array<() => void> = []
    socket.on("data", (chunk) => {
      received += chunk.toString("latin1")
      waiters.splice(0).forEach((wake) => wake())
    })
    socket.on("error", () => {})
    socket.on("close", () => {
      closed = true
      waiters.splice(0).forEach((wake) => wake())
    })
    const next: Effect.Effect<RawResponse> = Effect.async((resume) => {
      const attempt = () => {
        const parsed = parseAt(received.slice(consumed))
        if (parsed !== undefined) {
          consumed += parsed.length
          resume(Effect.succeed(parsed.response))
        } else if (closed) {
          resume(Effect.die(new Error(`connection closed; received: ${received.slice(consumed, consumed + 300)}`)))
        } else {
          waiters.push(attempt)
        }
      }
      attempt()
    })
    return {
      write: (data) =>
        Effect.async<void>((resume) => {
          socket.write(data, () => resume(Effect.void))
        }),
      next,
      received: () => received,
      closed: () => closed
    }
  }))

/** Sends `data` on a new connection and answers its first response. */
export const exchange = (origin: string, data: string | Buffer): Effect.Effect<RawResponse> =>
  Effect.scoped(Effect.flatMap(connect(origin), (connection) => Effect.zipRight(connection.write(data), connection.next)))
