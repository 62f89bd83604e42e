/**
 * The rule of `Idempotency-Key` on `createPet` (record 0012): the key format,
 * what counts as the same request, the 24-hour window, and the decision.
 *
 * @since 1.0.0
 */
import * as Crypto from "node:crypto"
import type { IdempotencyDecision, IdempotencyRecord } from "./IdempotencyStore.js"

/**
 * The longest key, in characters.
 *
 * @since 1.0.0
 * @category constants
 */
export const maxKeyLength = 255

/**
 * How long a key is remembered from its first request (24 hours, in ms); replays do not extend it.
 *
 * @since 1.0.0
 * @category constants
 */
export const retentionMillis = 24 * 60 * 60 * 1000

/**
 * The key format: 1 to 255 visible ASCII characters (RFC 5234 `VCHAR`).
 *
 * @since 1.0.0
 * @category constants
 */
export const keyPattern = /^[\x21-\x7e]{1,255}$/

/**
 * Whether `key` is a well-formed `Idempotency-Key`.
 *
 * @since 1.0.0
 * @category predicates
 */
export const isKey = (key: string): boolean => keyPattern.test(key)

/**
 * The JSON Schema of a key, for documents.
 *
 * @since 1.0.0
 * @category constants
 */
export const keyJsonSchema = {
  type: "string",
  minLength: 1,
  maxLength: maxKeyLength,
  pattern: "^[\\x21-\\x7E]+$"
} as const

/**
 * The canonical JSON text of a value: members sorted by name, no white space,
 * so texts that parse to the same JSON value have the same canonical text.
 *
 * @since 1.0.0
 * @category conversions
 */
export const canonicalJson = (value: unknown): string => {
  switch (typeof value) {
    case "string":
      return JSON.stringify(value)
    case "number":
      return Number.isFinite(value) ? String(value) : "null"
    case "boolean":
      return value ? "true" : "false"
  }
  if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "null"
  if (Array.isArray(value)) {
    let out = "["
    for (let i = 0; i < value.length; i++) out += (i === 0 ? "" : ",") + canonicalJson(value[i] ?? null)
    return out + "]"
  }
  const record = value as Record<string, unknown>
  const names = sortedNames(record)
  let out = "{"
  for (let i = 0; i < names.length; i++) {
    const member = record[names[i]!]
    if (member === undefined) continue
    out += (out.length === 1 ? "" : ",") + JSON.stringify(names[i]!) + ":" + canonicalJson(member)
  }
  return out + "}"
}

const sortedNames = (record: Record<string, unknown>): Array<string> => Object.keys(record).sort()

const sha256 = (text: string): string => Crypto.hash("sha256", text, "base64url")

/**
 * What "the same body" means: the SHA-256 of the canonical JSON of the body
 * as sent (before defaults or trimming).
 *
 * @since 1.0.0
 * @category constructors
 */
export const fingerprint = (body: unknown): string => sha256(canonicalJson(body))

/**
 * The rule an `IdempotencyStore` runs atomically on a key's record: `Create`
 * (no record or an expired one), `InUse`, `Reused` (another body) or `Replayed`.
 *
 * @since 1.0.0
 * @category rules
 */
export const decide = (bodyFingerprint: string, now: number) =>
(record: IdempotencyRecord | undefined): IdempotencyDecision => {
  if (record === undefined || record.expiresAt <= now) {
    return { _tag: "Create", fingerprint: bodyFingerprint, expiresAt: now + retentionMillis }
  }
  if (record._tag === "InProgress") return inUse
  if (record.fingerprint !== bodyFingerprint) return reused
  return { _tag: "Replayed", pet: record.pet }
}

const inUse: IdempotencyDecision = { _tag: "InUse" }
const reused: IdempotencyDecision = { _tag: "Reused" }
