/**
 * The query of `listPets` and the cursors that continue a listing, sealed
 * with HMAC-SHA256 for the `status` they were issued for (record 0008).
 *
 * @since 1.0.0
 */
import { Context, Effect, Either, Layer, Option, Redacted, Schema } from "effect"
import { createHmac, randomBytes } from "node:crypto"
import type { Pet } from "./Pet.js"
import { PetId, PetStatus } from "./Pet.js"
import { IntFromString, NumberOrIntString } from "./internal/schemas.js"

/**
 * @since 1.0.0
 * @category constants
 */
export const defaultLimit = 20

/**
 * @since 1.0.0
 * @category constants
 */
export const maxLimit = 100

/**
 * Page size: an integer from 1 to 100.
 *
 * @since 1.0.0
 * @category schemas
 */
export const Limit = Schema.Number.pipe(
  Schema.filter((n) => (Number.isInteger(n) && n >= 1 && n <= maxLimit) || `must be an integer from 1 to ${maxLimit}`, {
    identifier: "Limit",
    jsonSchema: { type: "integer", minimum: 1, maximum: maxLimit, default: defaultLimit }
  })
)

/** `c1.`, the base64url id it continues after, `.`, the first 16 bytes of its HMAC (base64url). */
const cursorPattern = /^c1\.([A-Za-z0-9_-]{1,28})\.([A-Za-z0-9_-]{22})$/

/**
 * Whether a text has the shape of a cursor (`Cursor`); its seal is not checked.
 *
 * @since 1.0.0
 * @category predicates
 */
export const isCursor = (text: string): boolean => cursorPattern.test(text)

/**
 * A listing's continuation token as sent: its shape only (`Cursors.open` checks its seal).
 *
 * @since 1.0.0
 * @category schemas
 */
export const Cursor = Schema.String.pipe(
  Schema.filter((s) => isCursor(s) || "is not a valid cursor", { identifier: "Cursor" })
)

/**
 * The secret cursors are sealed with; it belongs to the store, so every
 * process sharing the store accepts the same cursors (record 0008).
 *
 * @since 1.0.0
 * @category tags
 */
export class CursorSecret extends Context.Tag("@animal-store/core/CursorSecret")<
  CursorSecret,
  Redacted.Redacted<string>
>() {}

/**
 * A layer of the cursor secret `secret`.
 *
 * @since 1.0.0
 * @category layers
 */
export const layerCursorSecret = (secret: string | Redacted.Redacted<string>): Layer.Layer<CursorSecret> =>
  Layer.succeed(CursorSecret, Redacted.isRedacted(secret) ? secret : Redacted.make(secret))

/**
 * A new random cursor secret: 32 random bytes, as base64url (43 characters).
 *
 * @since 1.0.0
 * @category constructors
 */
export const randomCursorSecret = (): string => randomBytes(32).toString("base64url")

/**
 * A layer of a new random cursor secret for each build (the memory store).
 *
 * @since 1.0.0
 * @category layers
 */
export const layerRandomCursorSecret: Layer.Layer<CursorSecret> = Layer.sync(
  CursorSecret,
  () => Redacted.make(randomCursorSecret())
)

/**
 * Seals and opens the cursors of listings with one secret.
 *
 * @since 1.0.0
 * @category models
 */
export interface Cursors {
  /** The cursor that continues the listing of `status` (all when undefined) after `afterId`. */
  readonly seal: (status: PetStatus | undefined, afterId: PetId) => string
  /** The id `cursor` continues after, or `undefined` unless it was sealed with this secret for `status`. */
  readonly open: (cursor: string, status: PetStatus | undefined) => PetId | undefined
}

/** Whether two texts are equal, in a time that does not depend on where they differ. */
const equalInConstantTime = (a: string, b: string): boolean => {
  let difference = a.length ^ b.length
  for (let i = 0; i < a.length; i++) difference |= a.charCodeAt(i) ^ b.charCodeAt(i)
  return difference === 0
}

const decodeCursorId = Schema.decodeUnknownEither(Schema.compose(IntFromString, PetId))

/**
 * The cursors sealed with `secret` over the listing's `status` and the id.
 *
 * @since 1.0.0
 * @category constructors
 */
export const makeCursors = (secret: string | Uint8Array): Cursors => {
  // The seal covers the id as written, so no other spelling of it is accepted.
  const tag = (status: PetStatus | undefined, encodedId: string): string =>
    createHmac("sha256", secret).update(`listPets\u0000${status ?? ""}\u0000${encodedId}`).digest()
      .toString("base64url", 0, 16)
  return {
    seal: (status, afterId) => {
      const encodedId = Buffer.from(String(afterId)).toString("base64url")
      return `c1.${encodedId}.${tag(status, encodedId)}`
    },
    open: (cursor, status) => {
      const match = cursorPattern.exec(cursor)
      if (match === null || !equalInConstantTime(tag(status, match[1]!), match[2]!)) return undefined
      return Either.getOrUndefined(decodeCursorId(Buffer.from(match[1]!, "base64url").toString("latin1")))
    }
  }
}

/**
 * The cursors of the `CursorSecret` in the context, or of a random secret when there is none.
 *
 * @since 1.0.0
 * @category constructors
 */
export const cursors: Effect.Effect<Cursors> = Effect.map(
  Effect.serviceOption(CursorSecret),
  Option.match({
    onNone: () => makeCursors(randomBytes(32)),
    onSome: (secret) => makeCursors(Redacted.value(secret))
  })
)

/**
 * A `limit` as a number or, from a query string, a decimal string.
 *
 * @since 1.0.0
 * @category schemas
 */
export const LimitInput = Schema.compose(NumberOrIntString, Limit)

/**
 * The decoded query of `listPets`.
 *
 * @since 1.0.0
 * @category schemas
 */
export const ListPetsQuery = Schema.Struct({
  limit: Schema.optionalWith(LimitInput, { exact: true, default: () => defaultLimit }),
  status: Schema.optionalWith(PetStatus, { exact: true }),
  cursor: Schema.optionalWith(Cursor, { exact: true })
}).annotations({ identifier: "ListPetsQuery", parseOptions: { onExcessProperty: "ignore" } })

/**
 * @since 1.0.0
 * @category models
 */
export type ListPetsQuery = typeof ListPetsQuery.Type

/**
 * One page of a listing and, when more animals match, the cursor of the next page.
 *
 * @since 1.0.0
 * @category models
 */
export interface PetPage {
  readonly pets: ReadonlyArray<Pet>
  readonly nextCursor: string | undefined
}
