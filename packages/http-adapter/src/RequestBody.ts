/**
 * Reading a JSON request body, with the rules HTTP owns (decisions.md):
 * `Content-Type` must be `application/json` (parameters such as `charset`
 * allowed), else 415; at most 65,536 bytes, enforced while the body streams
 * in (a declared `Content-Length` over the limit is refused before reading
 * anything), else 413; the bytes must be UTF-8 JSON, else 400.
 *
 * @since 1.0.0
 */
import { Chunk, Effect, Stream } from "effect"
import type { Readable } from "node:stream"
import * as HttpExchange from "./HttpExchange.js"
import { MalformedBody, PayloadTooLarge, UnsupportedMediaType } from "./ProtocolError.js"

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

const declaredLength = (request: HttpExchange.Request): number | undefined => {
  const value = HttpExchange.header(request, "content-length")
  return value !== undefined && /^[0-9]+$/.test(value.trim()) ? Number(value) : undefined
}

const unreadable = () => new MalformedBody({ reason: "the body could not be read" })

/**
 * The body of a Node request, read directly (no stream machinery per chunk).
 * When the limit is passed, reading stops without destroying the request, so
 * the 413 response still reaches the client; the unread rest is discarded.
 *
 * @since 1.0.0
 * @category constructors
 */
export const fromNode = (source: Readable) => (limit: number): Effect.Effect<Uint8Array, PayloadTooLarge | MalformedBody> =>
  Effect.async((resume) => {
    if (source.readableEnded) {
      resume(Effect.succeed(new Uint8Array(0)))
      return
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
        resume(Effect.fail(new PayloadTooLarge({ maxBytes: limit })))
      } else {
        chunks.push(chunk)
      }
    }
    const onEnd = () => {
      stop()
      resume(Effect.succeed(Buffer.concat(chunks, size)))
    }
    const onError = () => {
      stop()
      resume(Effect.fail(unreadable()))
    }
    const onClose = () => {
      if (!source.readableEnded) onError()
    }
    source.on("data", onData)
    source.on("end", onEnd)
    source.on("error", onError)
    source.on("close", onClose)
    return Effect.sync(stop)
  })

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
): Effect.Effect<unknown, UnsupportedMediaType | PayloadTooLarge | MalformedBody> => {
  const contentType = HttpExchange.header(request, "content-type")
  if (!isJsonContentType(contentType)) return Effect.fail(new UnsupportedMediaType({ contentType }))
  const declared = declaredLength(request)
  return declared !== undefined && declared > maxBytes
    ? Effect.fail(new PayloadTooLarge({ maxBytes }))
    : Effect.flatMap(request.body(maxBytes), parseJson)
}
