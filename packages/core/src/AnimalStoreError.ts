/**
 * The error of the Promise facade (`AnimalStore.open`): a failure as the
 * `code`, `message` and `status` an HTTP client would get (record 0062).
 *
 * @since 1.0.0
 */
import type { ApiError, ErrorCode, ErrorDetail } from "./ApiError.js"
import { describe } from "./ApiError.js"
import type { ResponseMeta } from "./GuardedPetOperations.js"
import type * as StoreError from "./StoreError.js"

/** The HTTP status of each code the facade raises, as the adapter answers it (`ProtocolError.statusByCode`; a test holds them equal). */
const statusByCode: Readonly<Record<ErrorCode, number>> = {
  invalid_request: 400,
  unauthorized: 401,
  not_found: 404,
  idempotency_key_in_use: 409,
  gone: 410,
  idempotency_key_reused: 422,
  rate_limited: 429,
  api_key_banned: 429,
  internal_error: 500,
  service_unavailable: 503
}

/**
 * A failure of the Promise facade: the `Error` body's `code`, `message` and
 * `status`, the validation `details` when there are any, and for guarded calls
 * the response metadata.
 *
 * @since 1.0.0
 * @category errors
 */
export class AnimalStoreError extends Error {
  override readonly name = "AnimalStoreError"
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details: ReadonlyArray<ErrorDetail> | undefined,
    readonly meta: ResponseMeta | undefined,
    options?: ErrorOptions
  ) {
    super(message, options)
  }
  /** The HTTP status an HTTP client would get with this code. */
  get status(): number {
    return statusByCode[this.code]
  }
}

/**
 * The facade's error of a typed failure (of a guarded call, with its
 * metadata): what the failure tells (`ApiError.describe`).
 *
 * @since 1.0.0
 * @category constructors
 */
export const fromFailure = (
  error: ApiError | StoreError.StoreError,
  meta?: ResponseMeta
): AnimalStoreError => {
  const { code, details, message } = describe(error)
  return new AnimalStoreError(code, message, details, meta)
}
