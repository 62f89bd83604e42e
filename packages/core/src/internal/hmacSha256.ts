import * as Crypto from "node:crypto"

const blockBytes = 64
const digestBytes = 32
/**
 * Messages of up to this many UTF-16 units (3 bytes each at most in UTF-8)
 * are written into the reused inner block; longer ones are joined to it in a
 * new buffer.
 */
const scratchChars = 256

/**
 * HMAC-SHA256 (RFC 2104) under one key: the key's two padded blocks are made
 * once, and each tag is two one-shot `crypto.hash` calls over them and the
 * message, without the `Hmac` object per message that `createHmac` makes
 * (about half its CPU per cursor, sealed or opened, on the listing's path).
 * The key is read as `createHmac` reads it: a string as UTF-8, a longer key
 * than a block hashed first. Synchronous: the scratch buffers are reused.
 * @internal
 */
export const make = (key: string | Uint8Array): (message: string) => Buffer => {
  const bytes = typeof key === "string" ? Buffer.from(key, "utf8") : Buffer.from(key)
  const block = bytes.length > blockBytes ? Crypto.hash("sha256", bytes, "buffer") : bytes
  const inner = Buffer.alloc(blockBytes + scratchChars * 3)
  const outer = Buffer.alloc(blockBytes + digestBytes)
  for (let i = 0; i < blockBytes; i++) {
    inner[i] = (block[i] ?? 0) ^ 0x36
    outer[i] = (block[i] ?? 0) ^ 0x5c
  }
  return (message) => {
    const innerDigest = message.length <= scratchChars
      ? Crypto.hash("sha256", inner.subarray(0, blockBytes + inner.write(message, blockBytes, "utf8")), "buffer")
      : Crypto.hash("sha256", Buffer.concat([inner.subarray(0, blockBytes), Buffer.from(message, "utf8")]), "buffer")
    innerDigest.copy(outer, blockBytes)
    return Crypto.hash("sha256", outer, "buffer")
  }
}
