/**
 * The query of `listPets`: `limit` (1 to 100, default 20), an optional `status`
 * filter and an opaque `cursor` that continues a listing.
 *
 * @since 1.0.0
 */
import { Either, Encoding, ParseResult, Schema } from "effect"
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

const cursorPrefix = "p1."

const decodeCursorId = Schema.decodeUnknownEither(Schema.compose(IntFromString, PetId))

/**
 * The opaque continuation token of a listing. It stands for "after this id".
 *
 * @since 1.0.0
 * @category schemas
 */
export const Cursor = Schema.transformOrFail(Schema.String, PetId, {
  decode: (s, _, ast) =>
    Either.match(
      s.startsWith(cursorPrefix)
        ? Either.flatMap(Encoding.decodeBase64UrlString(s.slice(cursorPrefix.length)), decodeCursorId)
        : Either.left(undefined),
      {
        onLeft: () => ParseResult.fail(new ParseResult.Type(ast, s, "is not a valid cursor")),
        onRight: ParseResult.succeed
      }
    ),
  encode: (id) => ParseResult.succeed(cursorPrefix + Encoding.encodeBase64Url(String(id)))
}).annotations({ identifier: "Cursor", description: "Opaque token from a previous page's next link" })

/**
 * The opaque cursor that continues a listing after `id`.
 *
 * @since 1.0.0
 * @category constructors
 */
export const encodeCursor: (id: PetId) => string = Schema.encodeSync(Cursor)

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
