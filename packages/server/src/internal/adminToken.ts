/**
 * The admin API's bearer token check: the `Authorization` header's token
 * against the configured one, their SHA-256 digests compared in constant
 * time (no early exit, no length leak).
 *
 * @internal
 */
import { Redacted } from "effect"
import * as Crypto from "node:crypto"

const digest = (text: string): Buffer => Crypto.createHash("sha256").update(text, "utf8").digest()

/** Whether `authorization` is `Bearer <token>` (the scheme in any case). @internal */
export const makeCheck = (token: Redacted.Redacted<string>): (authorization: string | undefined) => boolean => {
  const expected = digest(Redacted.value(token))
  return (authorization) => {
    const match = authorization === undefined ? null : /^bearer +(\S+) *$/i.exec(authorization)
    // The digest of something is compared even when no token was sent, so every refusal costs the same.
    const equal = Crypto.timingSafeEqual(digest(match?.[1] ?? ""), expected)
    return match !== null && equal
  }
}
