import { Effect, Either, ParseResult } from "effect"
import type { Schema } from "effect"
import type { ErrorDetail } from "../ApiError.js"
import { InvalidRequest } from "../ApiError.js"

const formatPath = (path: ReadonlyArray<PropertyKey>): string =>
  path.length === 0 ? "(root)" : path.map(String).join(".")

/** The issue with each `Type` issue's message saying what was expected, never showing the value. */
const withoutValues = (issue: ParseResult.ParseIssue): ParseResult.ParseIssue => {
  switch (issue._tag) {
    case "Type":
      return issue.message === undefined
        ? new ParseResult.Type(issue.ast, issue.actual, `Expected ${String(issue.ast)}`)
        : issue
    case "Pointer":
      return new ParseResult.Pointer(issue.path, issue.actual, withoutValues(issue.issue))
    case "Refinement":
      return new ParseResult.Refinement(issue.ast, issue.actual, issue.kind, withoutValues(issue.issue))
    case "Transformation":
      return new ParseResult.Transformation(issue.ast, issue.actual, issue.kind, withoutValues(issue.issue))
    case "Composite":
      return new ParseResult.Composite(
        issue.ast,
        issue.actual,
        Array.isArray(issue.issues)
          ? (issue.issues.map(withoutValues) as [ParseResult.ParseIssue, ...Array<ParseResult.ParseIssue>])
          : withoutValues(issue.issues as ParseResult.ParseIssue),
        issue.output
      )
    default:
      return issue
  }
}

/**
 * The `InvalidRequest` refusing `what` for `details`; its message names the first.
 * @internal
 */
export const invalidRequest = (what: string, details: ReadonlyArray<ErrorDetail>): InvalidRequest => {
  const first = details[0]
  return new InvalidRequest({
    message: first === undefined ? `Invalid ${what}` : `Invalid ${what}: ${first.path} ${first.message}`,
    details
  })
}

const invalid = (issue: ParseResult.ParseIssue, what: string): InvalidRequest =>
  invalidRequest(
    what,
    ParseResult.ArrayFormatter.formatIssueSync(withoutValues(issue)).map((issue) => ({
      path: formatPath(issue.path),
      message: issue._tag === "Unexpected" ? "is not allowed" : issue.message
    }))
  )

/**
 * Decodes untrusted input with `schema` (compiled once), failing with an
 * `InvalidRequest` that lists every problem.
 * @internal
 */
export const decodeInput = <A, I>(schema: Schema.Schema<A, I>, what: string) => {
  const decode = ParseResult.decodeUnknownEither(schema, { errors: "all", onExcessProperty: "error" })
  return (input: unknown): Effect.Effect<A, InvalidRequest> => {
    const result = decode(input)
    return Either.isRight(result) ? Effect.succeed(result.right) : Effect.fail(invalid(result.left, what))
  }
}
