import { StoreError } from "@animal-store/core"
import type { SqlError } from "@effect/sql/SqlError"
import { Effect, Option } from "effect"
import type * as SqlStoreError from "../SqlStoreError.js"

const { causeChain, codeAlongCauses: codeOf, messagesAlongCauses: messagesOf } = StoreError

const matches = (rule: SqlStoreError.Rule, code: string | undefined, messages: string): boolean =>
  (rule.code !== undefined && code !== undefined && rule.code.test(code)) ||
  (rule.message !== undefined && rule.message.test(messages))

/** @internal */
export const fromCause = (
  classifier: SqlStoreError.Classifier,
  doing: string,
  cause: unknown,
  fallback: SqlStoreError.Reason = "Unknown"
): StoreError.StoreError => {
  const code = codeOf(cause, classifier.isCode)
  // One line: some causes (Node's own, a driver's) break their message over several.
  const messages = messagesOf(cause).replace(/\s*\n\s*/g, " ")
  const rule = classifier.rules.find((rule) => matches(rule, code, messages))
  const reason = rule?.reason ?? fallback
  const hint = rule?.hint ?? classifier.hints[fallback] ?? classifier.hints.Unknown
  return new StoreError.StoreError({ reason, message: `${doing}: ${hint} (${code ?? "error"}: ${messages})`, cause })
}

/** @internal */
export const isDriverFailure = (classifier: SqlStoreError.Classifier, cause: unknown): boolean =>
  causeChain(cause).some((link) => (link as { readonly _tag?: unknown })._tag === "SqlError") ||
  codeOf(cause, classifier.isCode) !== undefined ||
  classifier.rules.some((rule) => rule.message !== undefined && rule.message.test(messagesOf(cause)))

/** @internal */
export const mapError = (classifier: SqlStoreError.Classifier, doing: string) =>
<A, R>(self: Effect.Effect<A, SqlError | StoreError.StoreError, R>): Effect.Effect<A, StoreError.StoreError, R> =>
  self.pipe(
    Effect.mapError((e) => e._tag === "StoreError" ? e : fromCause(classifier, doing, e)),
    Effect.catchSomeDefect((defect) =>
      isDriverFailure(classifier, defect) ? Option.some(Effect.fail(fromCause(classifier, doing, defect))) : Option.none()
    )
  )
