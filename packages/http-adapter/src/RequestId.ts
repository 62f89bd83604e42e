/**
 * `X-Request-Id` (record 0028): an incoming value of 1 to 128 visible ASCII
 * characters is kept, otherwise a random UUID is generated.
 *
 * @since 1.0.0
 */

/**
 * The header, lower-case as responses carry it.
 *
 * @since 1.0.0
 * @category constants
 */
export const header = "x-request-id"

/**
 * The longest request id kept.
 *
 * @since 1.0.0
 * @category constants
 */
export const maxLength = 128

/**
 * Whether `value` is kept as a request id: 1 to 128 visible ASCII characters.
 *
 * @since 1.0.0
 * @category guards
 */
export const isValid = (value: string): boolean => {
  const length = value.length
  if (length === 0 || length > maxLength) return false
  for (let i = 0; i < length; i++) {
    const code = value.charCodeAt(i)
    if (code < 0x21 || code > 0x7e) return false
  }
  return true
}

/**
 * A new request id: a random UUID.
 *
 * @since 1.0.0
 * @category constructors
 */
export const generate = (): string => globalThis.crypto.randomUUID()

/**
 * The request id of a request whose `X-Request-Id` is `value`: `value` when valid, else a new one.
 *
 * @since 1.0.0
 * @category constructors
 */
export const of = (value: string | undefined): string => value !== undefined && isValid(value) ? value : generate()
