import { StoreError } from "@animal-store/core"
import type { SqlError } from "@effect/sql/SqlError"
import { Effect, Option } from "effect"
import type * as SqlStoreError from "../SqlStoreError.js"

/** The objects along a failure's `cause` chain, outermost first, at most 8. */
export const causeChain = (cause: unknown): ReadonlyArray<object> => {
  const chain: Array<object> = []
  for (let current = cause; typeof current === "object" && current !== null && chain.length < 8;) {
    chain.push(current)
    current = (current as { readonly cause?: unknown }).cause
  }
  return chain
}

/** The first string `code` along the chain that `accept`s. */
export const codeOf = (cause: unknown, accept: (code: string) => boolean): string | undefined => {
  for (const link of causeChain(cause)) {
    const code = (link as { readonly code?: unknown }).code
    if (typeof code === "string" && accept(code)) return code
  }
  return undefined
}

/** The distinct messages along the chain joined with `": "` (the cause as text when none has one). */
export const messagesOf = (cause: unknown): string => {
  const found: Array<string> = []
  for (const link of causeChain(cause)) {
    const message = link instanceof Error ? link.message : ""
    if (message !== "" && !found.includes(message)) found.push(message)
  }
  return found.length === 0 ? String(cause) : found.join(": ")
}

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
  const messages = messagesOf(cause)
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
