import * as Crypto from "node:crypto"
import type { Environment } from "../ApiKey.js"
import { keyPrefixByEnvironment } from "../ApiKey.js"

/** A well-formed key: an environment prefix and at least 16 of `[A-Za-z0-9_-]`. */
const secretPattern = /^ask_(live|test)_[A-Za-z0-9_-]{16,}$/

/**
 * The environment of a well-formed secret, from its prefix; `undefined` when malformed.
 * @internal
 */
export const environmentOf = (secret: string): Environment | undefined => {
  const match = secretPattern.exec(secret)
  return match === null ? undefined : match[1] === "live" ? "production" : "staging"
}

/**
 * The digest a key is stored and found by: SHA-256 of the whole secret, in hex.
 * @internal
 */
export const digestOf = (secret: string): string => Crypto.hash("sha256", secret, "hex")

/**
 * A new secret: the environment prefix and 32 random bytes (256 bits) in base64url.
 * @internal
 */
export const generateSecret = (environment: Environment): string =>
  keyPrefixByEnvironment[environment] + Crypto.randomBytes(32).toString("base64url")

/**
 * A new key id, unrelated to the secret: `key_` and 16 random base64url characters.
 * @internal
 */
export const generateKeyId = (): string => "key_" + Crypto.randomBytes(12).toString("base64url")

/**
 * What a key is shown as: its environment prefix and the next 4 characters.
 * @internal
 */
export const displayPrefixOf = (secret: string, environment: Environment): string =>
  secret.slice(0, keyPrefixByEnvironment[environment].length + 4)
