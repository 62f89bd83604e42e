/**
 * Reading a JSON request body, with the rules HTTP owns (decisions.md):
 * `Content-Type` must be `application/json` (parameters such as `charset`
 * allowed), else 415; at most 65,536 bytes, enforced while the body streams
 * in (a declared `Content-Length` over the limit is refused before reading
 * anything), else 413; the bytes must be UTF-8 JSON, else 400.
 *
 * @since 1.0.0
 */
import type * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as NodeHttpServerRequest from "@effect/platform-node/NodeHttpServerRequest"
import * as NodeStream from "@effect/platform-node/NodeStream"
import { Chunk, Effect, Stream } from "effect"
import { Readable } from "node:stream"
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

const declaredLength = (request: HttpServerRequest.HttpServerRequest): number | undefined => {
  const value = request.headers["content-length"]
  return value !== undefined && /^[0-9]+$/.test(value.trim()) ? Number(value) : undefined
}

/**
 * The body as a stream. On Node the request is read without being destroyed
 * when reading stops early, so the 413 response still reaches the client;
 * the unread rest is then discarded.
 */
const bodyStream = (request: HttpServerRequest.HttpServerRequest) => {
  const source: unknown = NodeHttpServerRequest.toIncomingMessage(request)
  if (source instanceof Readable) {
    return {
      stream: NodeStream.fromReadable<unknown, Uint8Array>(() => source, (cause) => cause, { closeOnDone: false }),
      discardRest: Effect.sync(() => source.resume())
    }
  }
  return { stream: request.stream as Stream.Stream<Uint8Array, unknown>, discardRest: Effect.void }
}

/**
 * Reads at most `limit` bytes of the body, failing as soon as more arrive.
 *
 * @since 1.0.0
 * @category constructors
 */
export const readBytes = (
  request: HttpServerRequest.HttpServerRequest,
  limit: number = maxBytes
): Effect.Effect<Uint8Array, PayloadTooLarge | MalformedBody> => {
  const declared = declaredLength(request)
  if (declared !== undefined && declared > limit) return Effect.fail(new PayloadTooLarge({ maxBytes: limit }))
  const { discardRest, stream } = bodyStream(request)
  interface Read {
    readonly chunks: Chunk.Chunk<Uint8Array>
    readonly size: number
  }
  const read = Stream.runFoldEffect(
    Stream.mapError(stream, () => new MalformedBody({ reason: "the body could not be read" })),
    { chunks: Chunk.empty(), size: 0 } as Read,
    (read, chunk): Effect.Effect<Read, PayloadTooLarge> =>
      read.size + chunk.length > limit
        ? Effect.fail(new PayloadTooLarge({ maxBytes: limit }))
        : Effect.succeed({ chunks: Chunk.append(read.chunks, chunk), size: read.size + chunk.length })
  )
  return read.pipe(
    Effect.tapErrorTag("PayloadTooLarge", () => discardRest),
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
  request: HttpServerRequest.HttpServerRequest
): Effect.Effect<unknown, UnsupportedMediaType | PayloadTooLarge | MalformedBody> => {
  const contentType = request.headers["content-type"]
  return isJsonContentType(contentType)
    ? Effect.flatMap(readBytes(request), parseJson)
    : Effect.fail(new UnsupportedMediaType({ contentType }))
}
