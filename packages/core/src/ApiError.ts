/**
 * The domain's errors: the typed failures of the operations, each with its
 * `code`, and what a failure tells its caller (`describe`). The status each
 * code is answered with over HTTP is the adapter's (record 0062).
 *
 * @since 1.0.0
 */
import { Schema } from "effect"
import * as StoreError from "./StoreError.js"

/**
 * The codes a domain failure can have; `internal_error` and
 * `service_unavailable` are those of a store failure.
 *
 * @since 1.0.0
 * @category schemas
 */
export const ErrorCode = Schema.Literal(
  "invalid_request",
  "unauthorized",
  "not_found",
  "idempotency_key_in_use",
  "gone",
  "idempotency_key_reused",
  "rate_limited",
  "api_key_banned",
  "internal_error",
  "service_unavailable"
)

/**
 * @since 1.0.0
 * @category models
 */
export type ErrorCode = typeof ErrorCode.Type

/**
 * One problem found while validating input: where, and what is wrong.
 *
 * @since 1.0.0
 * @category schemas
 */
export const ErrorDetail = Schema.Struct({
  path: Schema.String,
  message: Schema.String
})

/**
 * @since 1.0.0
 * @category models
 */
export type ErrorDetail = typeof ErrorDetail.Type

/**
 * What a failure tells its caller: its code, its message and, for
 * `invalid_request`, the details.
 *
 * @since 1.0.0
 * @category models
 */
export interface Description {
  readonly code: ErrorCode
  readonly message: string
  readonly details?: ReadonlyArray<ErrorDetail>
}

/**
 * Input that does not satisfy the interface: a body with missing or invalid
 * fields, an unknown property, an out-of-range `limit`, a malformed id or cursor.
 *
 * @since 1.0.0
 * @category errors
 */
export class InvalidRequest extends Schema.TaggedError<InvalidRequest>()("InvalidRequest", {
  message: Schema.String,
  details: Schema.Array(ErrorDetail)
}) {
  /** @since 1.0.0 */
  readonly code = "invalid_request" as const
}

/**
 * Why a credential was refused. The adapter reveals none of it (all are `unauthorized`)
 * but expiry, which the message names. `rotated`: a secret replaced by a
 * rotation, after its grace period.
 *
 * @since 1.0.0
 * @category models
 */
export const UnauthorizedReason = Schema.Literal("missing", "malformed", "unknown", "revoked", "wrong_environment", "expired", "rotated")

/**
 * @since 1.0.0
 * @category models
 */
export type UnauthorizedReason = typeof UnauthorizedReason.Type

/**
 * The bearer credential is missing or invalid.
 *
 * @since 1.0.0
 * @category errors
 */
export class Unauthorized extends Schema.TaggedError<Unauthorized>()("Unauthorized", {
  reason: UnauthorizedReason
}) {
  /** @since 1.0.0 */
  readonly code = "unauthorized" as const
  /** @since 1.0.0 */
  override get message(): string {
    return this.reason === "missing"
      ? "A bearer API key is required"
      : this.reason === "expired"
      ? "The API key has expired"
      : "The API key is invalid"
  }
}

/**
 * No animal has the requested id.
 *
 * @since 1.0.0
 * @category errors
 */
export class PetNotFound extends Schema.TaggedError<PetNotFound>()("PetNotFound", {
  id: Schema.Number
}) {
  /** @since 1.0.0 */
  readonly code = "not_found" as const
  /** @since 1.0.0 */
  override get message(): string {
    return `No pet with id ${this.id}`
  }
}

/**
 * The request is over a rate limit; `retryAfter` is in whole seconds.
 *
 * @since 1.0.0
 * @category errors
 */
export class RateLimited extends Schema.TaggedError<RateLimited>()("RateLimited", {
  retryAfter: Schema.Int
}) {
  /** @since 1.0.0 */
  readonly code = "rate_limited" as const
  /** @since 1.0.0 */
  override get message(): string {
    return `Rate limit exceeded; retry after ${this.retryAfter} seconds`
  }
}

/**
 * The API key is temporarily banned for continuing after being refused.
 *
 * @since 1.0.0
 * @category errors
 */
export class ApiKeyBanned extends Schema.TaggedError<ApiKeyBanned>()("ApiKeyBanned", {
  retryAfter: Schema.Int
}) {
  /** @since 1.0.0 */
  readonly code = "api_key_banned" as const
  /** @since 1.0.0 */
  override get message(): string {
    return `API key temporarily banned for requests after a rate limit refusal; retry after ${this.retryAfter} seconds`
  }
}

/**
 * The operation is past its sunset date.
 *
 * @since 1.0.0
 * @category errors
 */
export class Gone extends Schema.TaggedError<Gone>()("Gone", {
  operation: Schema.String,
  sunset: Schema.DateFromSelf
}) {
  /** @since 1.0.0 */
  readonly code = "gone" as const
  /** @since 1.0.0 */
  override get message(): string {
    return `${this.operation} was removed on ${this.sunset.toUTCString()}`
  }
}

/**
 * The `Idempotency-Key` of a `createPet` was first used, in the last 24 hours
 * and by the same API key, with another body (decisions.md, "Idempotency";
 * the rule is `Idempotency.decide`).
 *
 * @since 1.0.0
 * @category errors
 */
export class IdempotencyKeyReused extends Schema.TaggedError<IdempotencyKeyReused>()("IdempotencyKeyReused", {}) {
  /** @since 1.0.0 */
  readonly code = "idempotency_key_reused" as const
  /** @since 1.0.0 */
  override get message(): string {
    return "This Idempotency-Key was already used with another request body in the last 24 hours"
  }
}

/**
 * The first `createPet` with this `Idempotency-Key` is still being processed;
 * retrying later gets its response replayed.
 *
 * @since 1.0.0
 * @category errors
 */
export class IdempotencyKeyInUse extends Schema.TaggedError<IdempotencyKeyInUse>()("IdempotencyKeyInUse", {}) {
  /** @since 1.0.0 */
  readonly code = "idempotency_key_in_use" as const
  /** @since 1.0.0 */
  override get message(): string {
    return "A request with this Idempotency-Key is still being processed; retry later"
  }
}

/**
 * Every failure the operations can answer with to a client.
 *
 * @since 1.0.0
 * @category models
 */
export type ApiError =
  | InvalidRequest
  | Unauthorized
  | PetNotFound
  | RateLimited
  | ApiKeyBanned
  | Gone
  | IdempotencyKeyReused
  | IdempotencyKeyInUse

/**
 * What every store failure but an unreachable store tells: nothing.
 *
 * @since 1.0.0
 * @category constants
 */
export const internalError: Description = { code: "internal_error", message: "An internal error occurred" }

/**
 * What a store that cannot be reached now tells: nothing more.
 *
 * @since 1.0.0
 * @category constants
 */
export const serviceUnavailable: Description = {
  code: "service_unavailable",
  message: "The service cannot reach its store; retry later"
}

/**
 * What a typed failure tells its caller. A store failure discloses nothing:
 * `service_unavailable` when the store cannot be reached, else `internal_error`.
 *
 * @since 1.0.0
 * @category conversions
 */
export const describe = (error: ApiError | StoreError.StoreError): Description =>
  error._tag === "StoreError"
    ? StoreError.isUnavailable(error) ? serviceUnavailable : internalError
    : error._tag === "InvalidRequest"
    ? { code: error.code, message: error.message, details: error.details }
    : { code: error.code, message: error.message }
