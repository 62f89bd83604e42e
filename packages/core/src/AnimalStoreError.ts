/**
 * The error of the Promise facade (`AnimalStore.open`): the `Error` body of
 * an HTTP response as a thrown value.
 *
 * @since 1.0.0
 */
import type { ApiError, ErrorCode, ErrorDetail } from "./ApiError.js"
import { statusByCode, toBody } from "./ApiError.js"
import type { ResponseMeta } from "./GuardedPetOperations.js"
import type * as StoreError from "./StoreError.js"

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
  /** The HTTP status of the code. */
  get status(): number {
    return statusByCode[this.code]
  }
}

/**
 * The facade's error of a typed failure (of a guarded call, with its
 * metadata): the `Error` body an HTTP client would get (`ApiError.toBody`).
 *
 * @since 1.0.0
 * @category constructors
 */
export const fromFailure = (
  error: ApiError | StoreError.StoreError,
  meta?: ResponseMeta
): AnimalStoreError => {
  const body = toBody(error)
  return new AnimalStoreError(body.code, body.message, body.details, meta)
}
