/**
 * The rule of `Idempotency-Key` on `createPet` (decisions.md, "Idempotency"),
 * in one place: the key format, what counts as the same request, the 24-hour
 * window, and what a keyed request gets given the record of its key. Stores
 * (`IdempotencyStore`) run `decide` atomically and store what it says.
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
 * How long a key is remembered from the first request that carried it: 24
 * hours, in milliseconds. Replays do not extend it.
 *
 * @since 1.0.0
 * @category constants
 */
export const retentionMillis = 24 * 60 * 60 * 1000

/**
 * The key format as a regular expression: 1 to 255 visible ASCII characters
 * (`%x21-7E`, RFC 5234 `VCHAR`; no space, no control or non-ASCII character).
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
 * The canonical JSON text of a JSON value: object members sorted by name
 * (UTF-16 code units), no white space, members whose value is `undefined`
 * left out (as `JSON.stringify` does). Two texts that parse to the same JSON
 * value (members in any order, any spacing, `1` and `1.0`, escaped or not)
 * have the same canonical text.
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

/** The own enumerable names of `record` in UTF-16 code unit order (`Array.prototype.sort`'s). */
const sortedNames = (record: Record<string, unknown>): Array<string> => Object.keys(record).sort()

// `crypto.hash` is in every Node these packages support (20.19 and later).
const sha256 = (text: string): string => Crypto.hash("sha256", text, "base64url")

/**
 * What "the same body" means: the SHA-256 (base64url) of the body's
 * canonical JSON text. It is taken of the body as sent (the JSON value
 * parsed, before validation fills in defaults or trims names), so
 * `{"categoryId":1,"name":"Rex"}` and `{ "name": "Rex", "categoryId": 1.0 }`
 * are the same body, and `{"name":" Rex","categoryId":1}` or one with
 * `"status":"available"` added is another.
 *
 * @since 1.0.0
 * @category constructors
 */
export const fingerprint = (body: unknown): string => sha256(canonicalJson(body))

/**
 * The rule, as the pure step an `IdempotencyStore` runs atomically on the
 * record of a key, for a request whose body has `bodyFingerprint`, at `now`:
 *
 * - no record, or one that expired (`expiresAt <= now`): `Create`, with a
 *   record until `now` + 24 hours;
 * - a record in progress: `InUse` (409), whatever the body, as the first
 *   request may still fail and leave no record;
 * - a record of another body: `Reused` (422);
 * - a completed record of the same body: `Replay` of its animal.
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
