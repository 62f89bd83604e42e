/** Raw HTTP/1.1 over a socket, for what `fetch` cannot send: bad requests, absolute-form targets, `Expect`. */
import { Effect } from "effect"
import * as Net from "node:net"

export interface RawResponse {
  readonly status: number
  readonly headers: Readonly<Record<string, string>>
  /** The body's bytes as latin1 text. */
  readonly body: string
}

/** The first response of `raw` (a 1xx included), or `undefined` when it is not complete. */
export const parse = (raw: string): RawResponse | undefined => {
  const headEnd = raw.indexOf("\r\n\r\n")
  if (headEnd === -1) return undefined
  const [statusLine, ...lines] = raw.slice(0, headEnd).split("\r\n")
  const headers: Record<string, string> = {}
  for (const line of lines) {
    const colon = line.indexOf(":")
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim()
  }
  const status = Number(statusLine!.split(" ")[1])
  const length = status < 200 || status === 204 || status === 304 ? 0 : Number(headers["content-length"] ?? 0)
  const body = raw.slice(headEnd + 4, headEnd + 4 + length)
  // received as latin1: one character per byte
  return body.length < length ? undefined : { status, headers, body }
}

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
        const response = parse(received.slice(consumed))
        if (response !== undefined) {
          const headEnd = received.indexOf("\r\n\r\n", consumed)
          consumed = headEnd + 4 + response.body.length
          resume(Effect.succeed(response))
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
