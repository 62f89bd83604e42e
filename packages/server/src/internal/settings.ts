/**
 * The decoders of the command line's settings: each turns a flag's text (or
 * its variable's) into its value, or into the reason it is refused.
 *
 * @internal
 */
import type { ApiKey } from "@animal-store/core"
import { ClientAddress } from "@animal-store/http-adapter"
import { Duration, Either, Redacted } from "effect"

/** A decoder of a setting's text. @internal */
export type Decode<A> = (text: string) => Either.Either<A, string>

/** A decimal integer from `min` to `max`. @internal */
export const integerIn = (min: number, max: number): Decode<number> => (text) =>
  /^[0-9]+$/.test(text) && Number(text) >= min && Number(text) <= max
    ? Either.right(Number(text))
    : Either.left(`expected an integer from ${min} to ${max}, got "${text}"`)

/** A decimal integer of at least 1. @internal */
export const positiveInteger: Decode<number> = (text) =>
  /^[0-9]+$/.test(text) && Number(text) >= 1 && Number.isSafeInteger(Number(text))
    ? Either.right(Number(text))
    : Either.left(`expected a positive integer, got "${text}"`)

/** A duration: `0`, or whole days, hours, minutes and seconds in that order (`30d`, `12h`, `1h30m`, `90s`). @internal */
export const duration: Decode<Duration.Duration> = (text) => {
  const match = /^(?:([0-9]+)d)?(?:([0-9]+)h)?(?:([0-9]+)m)?(?:([0-9]+)s)?$/.exec(text)
  const seconds = text === "0"
    ? 0
    : match === null || text === ""
    ? Number.NaN
    : [86_400, 3_600, 60, 1].reduce((sum, unit, i) => sum + unit * Number(match[i + 1] ?? 0), 0)
  return Number.isSafeInteger(seconds) && seconds * 1000 <= 8.64e15
    ? Either.right(Duration.seconds(seconds))
    : Either.left(`expected a duration such as 30d, 12h, 90m, 45s or 1h30m, got "${text}"`)
}

/** `production` or `staging`. @internal */
export const environment: Decode<ApiKey.Environment> = (text) =>
  text === "production" || text === "staging"
    ? Either.right(text)
    : Either.left(`expected production or staging, got "${text}"`)

/** An absolute http or https URL. @internal */
export const httpUrl: Decode<string> = (text) => {
  const parsedUrl = URL.canParse(text) ? new URL(text) : undefined
  return parsedUrl !== undefined && (parsedUrl.protocol === "http:" || parsedUrl.protocol === "https:")
    ? Either.right(text)
    : Either.left(`expected an http or https URL, got "${text}"`)
}

/** `on` or `off` (also `true`/`false`, `1`/`0`). @internal */
export const onOff: Decode<boolean> = (text) =>
  ["on", "true", "1"].includes(text)
    ? Either.right(true)
    : ["off", "false", "0"].includes(text)
    ? Either.right(false)
    : Either.left(`expected on or off, got "${text}"`)

/** Comma-separated items, blanks dropped. @internal */
export const list: Decode<ReadonlyArray<string>> = (text) =>
  Either.right(text.split(",").map((item) => item.trim()).filter((item) => item.length > 0))

const isOrigin = (item: string): boolean => {
  if (!URL.canParse(item)) return false
  const origin = new URL(item)
  return (origin.protocol === "http:" || origin.protocol === "https:") && origin.origin === item.replace(/\/$/, "")
}

/** `*` or comma-separated origins (`https://app.example.com`). @internal */
export const origins: Decode<ReadonlyArray<string>> = (text) =>
  Either.flatMap(list(text), (items) => {
    const bad = items.find((item) => item !== "*" && !isOrigin(item))
    return bad === undefined
      ? Either.right(items)
      : Either.left(`expected * or origins such as https://app.example.com, got "${bad}"`)
  })

/** Comma-separated addresses or CIDR ranges, IPv4 or IPv6 (`10.0.0.0/8,2001:db8::1`). @internal */
export const trustedProxies: Decode<ReadonlyArray<string>> = (text) =>
  Either.flatMap(list(text), (items) => {
    for (const item of items) {
      const parsed = ClientAddress.parseTrustedProxy(item)
      if (Either.isLeft(parsed)) return Either.left(parsed.left)
    }
    return Either.right(items)
  })

/** A secret of at least 32 characters, never shown in a refusal. @internal */
export const secret: Decode<Redacted.Redacted<string>> = (text) =>
  text.length >= 32 ? Either.right(Redacted.make(text)) : Either.left("expected at least 32 characters")
