/**
 * Listing cursors sealed as the standalone server seals them (`c1.<id>.<tag>`,
 * the tag an HMAC-SHA256 over the listing's status and the id, with the secret
 * of `ANIMAL_STORE_CURSOR_SECRET`), for the reference servers of the HTTP
 * benchmark: every server does the same work and accepts the same cursors.
 */
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto"

const pattern = /^c1\.([A-Za-z0-9_-]{1,28})\.([A-Za-z0-9_-]{22})$/
const decimal = /^[0-9]{1,20}$/

/** A decimal text of an id from 1 to 2^53-1, else `undefined`. */
export const positiveId = (text: string): number | undefined => {
  if (!decimal.test(text)) return undefined
  const n = Number(text)
  return Number.isSafeInteger(n) && n >= 1 ? n : undefined
}

/** Sealing and opening cursors with `secret` (the environment's, or a random one). */
export const make = (secret = process.env["ANIMAL_STORE_CURSOR_SECRET"] ?? randomBytes(32).toString("hex")) => {
  const sealOf = (status: string | undefined, encodedId: string) =>
    createHmac("sha256", secret).update(`listPets\u0000${status ?? ""}\u0000${encodedId}`).digest().subarray(0, 16)
      .toString("base64url")
  return {
    /** The id a cursor of the listing of `status` continues after, or `undefined` when it is not one. */
    open: (cursor: string, status: string | undefined): number | undefined => {
      const match = pattern.exec(cursor)
      if (match === null) return undefined
      const expected = Buffer.from(sealOf(status, match[1]!))
      const given = Buffer.from(match[2]!)
      if (expected.length !== given.length || !timingSafeEqual(expected, given)) return undefined
      return positiveId(Buffer.from(match[1]!, "base64url").toString("latin1"))
    },
    /** The cursor of the listing of `status` after `id`. */
    seal: (id: number, status: string | undefined): string => {
      const encodedId = Buffer.from(String(id)).toString("base64url")
      return `c1.${encodedId}.${sealOf(status, encodedId)}`
    }
  }
}
