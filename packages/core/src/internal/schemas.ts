import { ParseResult, Schema } from "effect"

/** @internal */
export const maxId = Number.MAX_SAFE_INTEGER

/** @internal */
export const PositiveSafeInt = Schema.Number.pipe(
  Schema.filter(
    (n) => (Number.isSafeInteger(n) && n >= 1) || `must be an integer from 1 to ${maxId}`,
    { jsonSchema: { type: "integer", format: "int64", minimum: 1, maximum: maxId } }
  )
)

const decimal = /^[0-9]+$/

const unpairedSurrogate = /\p{Cs}/u

/**
 * Whether a text has an unpaired UTF-16 surrogate (no UTF-8 form).
 * @internal
 */
export const hasUnpairedSurrogate = (text: string): boolean => unpairedSurrogate.test(text)

/**
 * Strict decimal integer strings: no sign, no exponent, no white space.
 * @internal
 */
export const IntFromString = Schema.transformOrFail(Schema.String, Schema.Number, {
  decode: (s, _, ast) =>
    decimal.test(s) && s.length <= 20
      ? ParseResult.succeed(Number(s))
      : ParseResult.fail(new ParseResult.Type(ast, s, "must be a positive decimal integer")),
  encode: (n) => ParseResult.succeed(String(n))
})

/** @internal */
export const PositiveSafeIntFromString = Schema.compose(IntFromString, PositiveSafeInt)

/**
 * A number, or a strict decimal integer string (as in a path or a query string).
 * @internal
 */
export const NumberOrIntString = Schema.transformOrFail(Schema.Unknown, Schema.Number, {
  decode: (u, _, ast) =>
    typeof u === "number"
      ? ParseResult.succeed(u)
      : typeof u === "string" && decimal.test(u) && u.length <= 20
      ? ParseResult.succeed(Number(u))
      : ParseResult.fail(new ParseResult.Type(ast, u, "must be a positive decimal integer")),
  encode: ParseResult.succeed
})
