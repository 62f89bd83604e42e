import { createHash } from "node:crypto"
import { brotliCompressSync, constants, gzipSync } from "node:zlib"
import * as HttpExchange from "../HttpExchange.js"

/**
 * A fixed document (the OpenAPI document, the reference page) prepared once:
 * its bytes as they are, gzip and brotli, and a strong `ETag` per encoding.
 * @internal
 */
export interface Representation {
  readonly contentType: string
  readonly cacheControl: string
  readonly variants: {
    readonly identity: Variant
    readonly gzip: Variant
    readonly br: Variant
  }
}

interface Variant {
  readonly body: string | Uint8Array
  readonly etag: string
}

/**
 * Prepares `body` once (compressed only when that makes it smaller).
 * @internal
 */
export const make = (body: string, contentType: string, cacheControl: string): Representation => {
  const bytes = Buffer.from(body)
  const hash = createHash("sha256").update(bytes).digest("base64url").slice(0, 27)
  const gzip = gzipSync(bytes, { level: 9 })
  const br = brotliCompressSync(bytes, {
    params: { [constants.BROTLI_PARAM_QUALITY]: 9, [constants.BROTLI_PARAM_SIZE_HINT]: bytes.length }
  })
  const identity: Variant = { body, etag: `"${hash}"` }
  return {
    contentType,
    cacheControl,
    variants: {
      identity,
      gzip: gzip.length < bytes.length ? { body: new Uint8Array(gzip), etag: `"${hash}-gzip"` } : identity,
      br: br.length < bytes.length ? { body: new Uint8Array(br), etag: `"${hash}-br"` } : identity
    }
  }
}

/** The q-value of `coding` in an `Accept-Encoding` value (0 when absent or refused). */
const quality = (acceptEncoding: string, coding: string): number => {
  let star = 0
  for (const item of acceptEncoding.split(",")) {
    const [name, ...params] = item.trim().toLowerCase().split(";")
    let q = 1
    for (const param of params) {
      const [key, value] = param.trim().split("=")
      if (key === "q") q = Number(value) >= 0 && Number(value) <= 1 ? Number(value) : 0
    }
    if (name === coding) return q
    if (name === "*") star = q
  }
  return star
}

/**
 * The encoding to send for an `Accept-Encoding` value: brotli, else gzip, else the identity.
 * @internal
 */
export const negotiate = (acceptEncoding: string | undefined): "br" | "gzip" | "identity" => {
  if (acceptEncoding === undefined || acceptEncoding.length === 0) return "identity"
  const br = quality(acceptEncoding, "br")
  const gzip = quality(acceptEncoding, "gzip")
  return br > 0 && br >= gzip ? "br" : gzip > 0 ? "gzip" : "identity"
}

/** Whether an `If-None-Match` value matches `etag` (weak comparison, as for GET). */
const matches = (ifNoneMatch: string, etag: string): boolean =>
  ifNoneMatch.trim() === "*" ||
  ifNoneMatch.split(",").some((tag) => tag.trim().replace(/^W\//, "") === etag)

/**
 * The response of a representation to `request` (its encoding, `ETag`, `Cache-Control`);
 * 304 when its `If-None-Match` matches.
 * @internal
 */
export const respond = (representation: Representation, request: HttpExchange.Request): HttpExchange.Response => {
  const encoding = negotiate(HttpExchange.header(request, "accept-encoding"))
  const variant = representation.variants[encoding]
  const headers: Record<string, string> = {
    "content-type": representation.contentType,
    "cache-control": representation.cacheControl,
    "etag": variant.etag,
    "vary": "Accept-Encoding"
  }
  const ifNoneMatch = HttpExchange.header(request, "if-none-match")
  if (ifNoneMatch !== undefined && matches(ifNoneMatch, variant.etag)) {
    return { status: 304, headers, body: "" }
  }
  if (variant !== representation.variants.identity) headers["content-encoding"] = encoding
  return { status: 200, headers, body: variant.body }
}
