/**
 * The errors core makes on the hot path as expected outcomes (refusals by the
 * limiter, 404s, validation failures, idempotency conflicts), made cheaply:
 * their fields are valid by construction, so they are not validated again,
 * and no stack trace is captured (it would only show the runtime). Either
 * cost was larger than the rest of a refused request: see the 401 and 429
 * rows of `pnpm bench --only http` and the per-request CPU figures in the
 * http-adapter README ("How it works").
 * @internal
 */
import type { ErrorDetail } from "../ApiError.js"
import {
  ApiKeyBanned,
  IdempotencyKeyInUse,
  IdempotencyKeyReused,
  InvalidRequest,
  PetNotFound,
  RateLimited,
  Unauthorized
} from "../ApiError.js"
import type { UnauthorizedReason } from "../ApiError.js"
import type { Effect } from "effect"
import { Exit } from "effect"
import type { PetId } from "../Pet.js"

/**
 * Runs `make` with stack traces off; the limit is restored at once, so
 * nothing else is affected.
 */
const withoutStackTrace = <A>(make: () => A): A => {
  const limit = Error.stackTraceLimit
  Error.stackTraceLimit = 0
  try {
    return make()
  } finally {
    Error.stackTraceLimit = limit
  }
}

/** `retryAfter`: whole seconds, by construction of the limiter's decision. @internal */
export const rateLimited = (retryAfter: number): RateLimited =>
  withoutStackTrace(() => new RateLimited({ retryAfter }, true))

/** `retryAfter`: whole seconds, by construction of the limiter's decision. @internal */
export const apiKeyBanned = (retryAfter: number): ApiKeyBanned =>
  withoutStackTrace(() => new ApiKeyBanned({ retryAfter }, true))

/** `id`: a decoded `PetId`. @internal */
export const petNotFound = (id: PetId): PetNotFound => withoutStackTrace(() => new PetNotFound({ id }, true))

/** @internal */
export const idempotencyKeyReused = (): IdempotencyKeyReused =>
  withoutStackTrace(() => new IdempotencyKeyReused({}, true))

/** @internal */
export const idempotencyKeyInUse = (): IdempotencyKeyInUse => withoutStackTrace(() => new IdempotencyKeyInUse({}, true))

/** `message` and `details`: built by `decode` from a parse's issues. @internal */
export const invalidRequest = (message: string, details: ReadonlyArray<ErrorDetail>): InvalidRequest =>
  withoutStackTrace(() => new InvalidRequest({ message, details }, true))

/**
 * One refusal of a key per reason, made once, as an `Exit` (failing with it
 * is one step of the fiber): refusing is the hot path of key guessing. Adapters may rely on it (the http-adapter makes each 401
 * response once per refusal).
 * @internal
 */
export const unauthorized: { readonly [R in UnauthorizedReason]: Effect.Effect<never, Unauthorized> } = {
  missing: Exit.fail(new Unauthorized({ reason: "missing" })),
  malformed: Exit.fail(new Unauthorized({ reason: "malformed" })),
  unknown: Exit.fail(new Unauthorized({ reason: "unknown" })),
  revoked: Exit.fail(new Unauthorized({ reason: "revoked" })),
  wrong_environment: Exit.fail(new Unauthorized({ reason: "wrong_environment" }))
}
