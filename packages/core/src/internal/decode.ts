import { Effect, ParseResult, Schema } from "effect"
import { InvalidRequest } from "../ApiError.js"

const formatPath = (path: ReadonlyArray<PropertyKey>): string =>
  path.length === 0 ? "(root)" : path.map(String).join(".")

/**
 * Decodes untrusted input with `schema`, failing with an `InvalidRequest`
 * that lists every problem as `{path, message}`.
 * @internal
 */
export const decodeInput = <A, I>(schema: Schema.Schema<A, I>, what: string) => {
  const decode = Schema.decodeUnknown(schema, { errors: "all", onExcessProperty: "error" })
  return (input: unknown): Effect.Effect<A, InvalidRequest> =>
    decode(input).pipe(
      Effect.catchAll((error) => {
        const details = ParseResult.ArrayFormatter.formatErrorSync(error).map((issue) => ({
          path: formatPath(issue.path),
          message: issue._tag === "Unexpected" ? "is not allowed" : issue.message
        }))
        const first = details[0]
        return Effect.fail(
          new InvalidRequest({
            message: first === undefined ? `Invalid ${what}` : `Invalid ${what}: ${first.path} ${first.message}`,
            details
          })
        )
      })
    )
}
