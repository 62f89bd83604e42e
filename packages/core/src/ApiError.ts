/**
 * The errors of the interface: the closed set of `code`s, the `Error` body
 * `{code, message, status}`, and the typed failures of the operations.
 *
 * @since 1.0.0
 */
import { Schema } from "effect"
import * as StoreError from "./StoreError.js"

/**
 * The closed set of error codes, each with the status it is answered with.
 * `status` is part of the interface's `Error` body, so it is defined here once
 * and every adapter answers with it.
 *
 * @since 1.0.0
 * @category constants
 */
export const statusByCode = {
  invalid_request: 400,
  unauthorized: 401,
  not_found: 404,
  method_not_allowed: 405,
  idempotency_key_in_use: 409,
  gone: 410,
  payload_too_large: 413,
  unsupported_media_type: 415,
  expectation_failed: 417,
  idempotency_key_reused: 422,
  rate_limited: 429,
  api_key_banned: 429,
  internal_error: 500,
  service_unavailable: 503
} as const

/**
 * @since 1.0.0
 * @category models
 */
export type ErrorCode = keyof typeof statusByCode

/**
 * @since 1.0.0
 * @category schemas
 */
export const ErrorCode = Schema.Literal(
  ...(Object.keys(statusByCode) as [ErrorCode, ...Array<ErrorCode>])
)

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
 * The `Error` body of every error response.
 *
 * @since 1.0.0
 * @category schemas
 */
export const ErrorBody = Schema.Struct({
  code: ErrorCode,
  message: Schema.String,
  status: Schema.Int,
  details: Schema.optional(Schema.Array(ErrorDetail))
}).annotations({ identifier: "Error" })

/**
 * @since 1.0.0
 * @category models
 */
export type ErrorBody = typeof ErrorBody.Type

/**
 * Builds an `Error` body whose `status` matches its code.
 *
 * @since 1.0.0
 * @category constructors
 */
export const makeBody = (
  code: ErrorCode,
  message: string,
  details?: ReadonlyArray<ErrorDetail>
): ErrorBody =>
  details === undefined
    ? { code, message, status: statusByCode[code] }
    : { code, message, status: statusByCode[code], details }

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
 * Why a credential was refused. The adapter reveals none of it (all are 401)
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
 * The body of every `internal_error`: it discloses nothing.
 *
 * @since 1.0.0
 * @category constants
 */
export const internalErrorBody: ErrorBody = makeBody("internal_error", "An internal error occurred")

/**
 * The body of every `service_unavailable`: the store cannot be reached now.
 * It discloses nothing.
 *
 * @since 1.0.0
 * @category constants
 */
export const serviceUnavailableBody: ErrorBody = makeBody(
  "service_unavailable",
  "The service cannot reach its store; retry later"
)

/**
 * The `Error` body of a typed failure, the one conversion every adapter uses
 * (HTTP responses, the Promise facade's `AnimalStoreError`). A store failure
 * discloses nothing: `service_unavailable` when the store cannot be reached,
 * else `internal_error`.
 *
 * @since 1.0.0
 * @category conversions
 */
export const toBody = (error: ApiError | StoreError.StoreError): ErrorBody =>
  error._tag === "StoreError"
    ? StoreError.isUnavailable(error) ? serviceUnavailableBody : internalErrorBody
    : error._tag === "InvalidRequest"
    ? makeBody(error.code, error.message, error.details)
    : makeBody(error.code, error.message)
