/**
 * Reading a JSON request body with the rules HTTP owns (record 0014):
 * `application/json` with no `Content-Encoding` (else 415), at most 65,536
 * bytes, enforced while it streams in (else 413), UTF-8 JSON (else 400).
 *
 * @since 1.0.0
 */
import { Chunk, Effect, Exit, Stream } from "effect"
import type { Readable } from "node:stream"
import * as HttpExchange from "./HttpExchange.js"
import { MalformedBody, PayloadTooLarge, UnsupportedContentEncoding, UnsupportedMediaType } from "./ProtocolError.js"

/**
 * The largest accepted body, in bytes.
 *
 * @since 1.0.0
 * @category constants
 */
export const maxBytes = 65_536

/**
 * Whether a `Content-Type` value is `application/json`, parameters ignored.
 *
 * @since 1.0.0
 * @category predicates
 */
export const isJsonContentType = (value: string | undefined): boolean =>
  value !== undefined && value.split(";")[0]!.trim().toLowerCase() === "application/json"

/**
 * Whether a `Content-Encoding` value leaves the body as it is (absent, empty or `identity`).
 *
 * @since 1.0.0
 * @category predicates
 */
export const isIdentityEncoding = (value: string | undefined): boolean => {
  if (value === undefined || value === "") return true
  const coding = value.trim().toLowerCase()
  return coding === "identity" || coding === ""
}

const declaredLength = (request: HttpExchange.Request): number | undefined => {
  const value = HttpExchange.header(request, "content-length")
  return value !== undefined && /^[0-9]+$/.test(value.trim()) ? Number(value) : undefined
}

const unreadable = () => new MalformedBody({ reason: "the body could not be read" })

/**
 * What reading a body gave: its bytes, or why it could not be read.
 *
 * @since 1.0.0
 * @category models
 */
export type Read = Exit.Exit<Uint8Array, PayloadTooLarge | MalformedBody>

/**
 * Reads a Node request's body directly and calls `done` once with what it
 * gave; past the limit it stops without destroying the request, so the 413
 * still reaches the client. The function returned stops reading.
 *
 * @since 1.0.0
 * @category constructors
 */
export const readNode = (source: Readable, limit: number, done: (read: Read) => void): () => void => {
  if (source.readableEnded) {
    done(Exit.succeed(new Uint8Array(0)))
    return () => {}
  }
  const chunks: Array<Buffer> = []
  let size = 0
  const stop = () => {
    source.off("data", onData)
    source.off("end", onEnd)
    source.off("error", onError)
    source.off("close", onClose)
  }
  const onData = (chunk: Buffer) => {
    size += chunk.length
    if (size > limit) {
      stop()
      source.resume()
      done(Exit.fail(new PayloadTooLarge({ maxBytes: limit })))
    } else {
      chunks.push(chunk)
    }
  }
  const onEnd = () => {
    stop()
    done(Exit.succeed(Buffer.concat(chunks, size)))
  }
  const onError = () => {
    stop()
    done(Exit.fail(unreadable()))
  }
  const onClose = () => {
    if (!source.readableEnded) onError()
  }
  source.on("data", onData)
  source.on("end", onEnd)
  source.on("error", onError)
  source.on("close", onClose)
  return stop
}

/**
 * The body of a Node request, read when asked for (`readNode`).
 *
 * @since 1.0.0
 * @category constructors
 */
export const fromNode = (source: Readable) => (limit: number): Effect.Effect<Uint8Array, PayloadTooLarge | MalformedBody> =>
  Effect.async((resume) => Effect.sync(readNode(source, limit, resume)))

/**
 * Whether a request's body is read before it is handled (`fromRead`): it
 * declares a length from 1 byte to `maxBytes` and does not expect `100 Continue`.
 *
 * @since 1.0.0
 * @category predicates
 */
export const isReadAhead = (request: HttpExchange.Request): boolean => {
  if (HttpExchange.header(request, "expect") !== undefined) return false
  const declared = declaredLength(request)
  return declared !== undefined && declared > 0 && declared <= maxBytes
}

/**
 * The body of a request as already read (`readNode`), checked against `limit`.
 *
 * @since 1.0.0
 * @category constructors
 */
export const fromRead = (read: Read) => (limit: number): Effect.Effect<Uint8Array, PayloadTooLarge | MalformedBody> =>
  Exit.isSuccess(read) && read.value.length > limit ? Effect.fail(new PayloadTooLarge({ maxBytes: limit })) : read

/**
 * The body of any other request, as a stream of bytes.
 *
 * @since 1.0.0
 * @category constructors
 */
export const fromStream = (stream: Stream.Stream<Uint8Array, unknown>) => (
  limit: number
): Effect.Effect<Uint8Array, PayloadTooLarge | MalformedBody> => {
  interface Read {
    readonly chunks: Chunk.Chunk<Uint8Array>
    readonly size: number
  }
  return Stream.runFoldEffect(
    Stream.mapError(stream, unreadable),
    { chunks: Chunk.empty(), size: 0 } as Read,
    (read, chunk): Effect.Effect<Read, PayloadTooLarge> =>
      read.size + chunk.length > limit
        ? Effect.fail(new PayloadTooLarge({ maxBytes: limit }))
        : Effect.succeed({ chunks: Chunk.append(read.chunks, chunk), size: read.size + chunk.length })
  ).pipe(
    Effect.map(({ chunks, size }) => {
      const bytes = new Uint8Array(size)
      let offset = 0
      for (const chunk of chunks) {
        bytes.set(chunk, offset)
        offset += chunk.length
      }
      return bytes
    })
  )
}

/**
 * The body of a web-standard `Request`.
 *
 * @since 1.0.0
 * @category constructors
 */
export const fromWeb = (body: ReadableStream<Uint8Array> | null) =>
  body === null
    ? (_limit: number): Effect.Effect<Uint8Array, PayloadTooLarge | MalformedBody> => Effect.succeed(new Uint8Array(0))
    : fromStream(Stream.fromReadableStream(() => body, unreadable))

const decoder = new TextDecoder("utf-8", { fatal: true })

/**
 * Parses UTF-8 JSON bytes.
 *
 * @since 1.0.0
 * @category constructors
 */
export const parseJson = (bytes: Uint8Array): Effect.Effect<unknown, MalformedBody> =>
  Effect.try({
    try: () => JSON.parse(decoder.decode(bytes)) as unknown,
    catch: (cause) =>
      new MalformedBody({
        reason: cause instanceof SyntaxError ? cause.message : "the body is not valid UTF-8"
      })
  })

/**
 * The JSON body of a request: 415, 413 or 400 when it breaks a rule.
 *
 * @since 1.0.0
 * @category constructors
 */
export const json = (
  request: HttpExchange.Request
): Effect.Effect<unknown, UnsupportedMediaType | UnsupportedContentEncoding | PayloadTooLarge | MalformedBody> => {
  const contentType = HttpExchange.header(request, "content-type")
  if (!isJsonContentType(contentType)) return Effect.fail(new UnsupportedMediaType({ contentType }))
  const contentEncoding = HttpExchange.header(request, "content-encoding")
  if (!isIdentityEncoding(contentEncoding)) {
    return Effect.fail(new UnsupportedContentEncoding({ contentEncoding: contentEncoding! }))
  }
  const declared = declaredLength(request)
  return declared !== undefined && declared > maxBytes
    ? Effect.fail(new PayloadTooLarge({ maxBytes }))
    : Effect.flatMap(request.body(maxBytes), parseJson)
}
