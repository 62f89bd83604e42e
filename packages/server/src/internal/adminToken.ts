/**
 * The admin API's bearer token check: SHA-256 digests compared in constant time.
 *
 * @internal
 */
import { Redacted } from "effect"
import * as Crypto from "node:crypto"

/** The variable whose token opens the admin API on the operations listener. @internal */
export const variable = "ANIMAL_STORE_ADMIN_TOKEN"

/** The fewest characters an admin token may have. @internal */
export const minimumLength = 32

/**
 * Why `token` cannot open the admin API (`opsPort` `undefined`: no operations
 * listener), never repeating it; `undefined` when it can.
 *
 * @internal
 */
export const refusal = (token: Redacted.Redacted<string>, opsPort: number | undefined): string | undefined =>
  opsPort === undefined
    ? `${variable} is set but --ops-port is not: the admin API is served on the operations listener ` +
      `(set --ops-port or ANIMAL_STORE_OPS_PORT, or unset ${variable})`
    : [...Redacted.value(token)].length < minimumLength
    ? `${variable} must be at least ${minimumLength} characters long`
    : undefined

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
