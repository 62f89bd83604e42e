/**
 * The address of the client a request comes from (records 0030, 0042): the
 * peer address or, behind a trusted proxy, the right-most `X-Forwarded-For` hop
 * that is not one (the peer's when a hop is not an IP address), normalised.
 *
 * @since 1.0.0
 */
import { Either } from "effect"
import type { BlockList } from "node:net"
import type * as HttpExchange from "./HttpExchange.js"
import * as AddressRanges from "./internal/addressRanges.js"

/**
 * The address used when the peer is unknown (a web handler called without one).
 *
 * @since 1.0.0
 * @category constants
 */
export const unknown = "unknown"

/**
 * An IP address in canonical form (IPv4-mapped as IPv4, IPv6 as RFC 5952
 * writes it); `undefined` when `text` is not an IP address.
 *
 * @since 1.0.0
 * @category constructors
 */
export const parse = (text: string): string | undefined => AddressRanges.canonical(text)

/**
 * A peer address in canonical form when it is an IP address, else as given, trimmed.
 *
 * @since 1.0.0
 * @category constructors
 */
export const normalize = (address: string): string => {
  const trimmed = address.trim()
  return AddressRanges.canonical(trimmed) ?? trimmed
}

/**
 * A trusted proxy: an address, or a CIDR range (`address/prefix`).
 *
 * @since 1.0.0
 * @category models
 */
export interface TrustedProxy {
  readonly address: string
  /** The length of the range's prefix in bits: 32 or 128 for one address. */
  readonly prefix: number
  readonly family: "ipv4" | "ipv6"
}

/**
 * Reads a trusted proxy entry (an address or a CIDR range), or says why it is not one.
 *
 * @since 1.0.0
 * @category constructors
 */
export const parseTrustedProxy = (entry: string): Either.Either<TrustedProxy, string> => {
  const range = AddressRanges.parse(entry.trim())
  return range === undefined
    ? Either.left(`expected an IP address or a CIDR range such as 10.0.0.0/8 or 2001:db8::/32, got "${entry}"`)
    : Either.right(range)
}

/** The trusted proxies as one `BlockList`; `undefined` when there are none. Throws on an entry that is not one. */
const trustedList = (trustedProxies: ReadonlyArray<string>): BlockList | undefined => {
  if (trustedProxies.length === 0) return undefined
  const ranges = trustedProxies.map((entry) => {
    const parsed = parseTrustedProxy(entry)
    if (Either.isLeft(parsed)) throw new Error(`Invalid trusted proxy: ${parsed.left}`)
    return parsed.right
  })
  return AddressRanges.blockList(ranges)
}

/** The client behind `trusted` proxies: the right-most hop that is not one; the peer when a hop is not an address. */
const behind = (trusted: BlockList | undefined, peer: string, forwardedFor: string | undefined): string => {
  const address = normalize(peer)
  if (trusted === undefined || forwardedFor === undefined || !AddressRanges.contains(trusted, address)) return address
  const hops = forwardedFor.split(",")
  let client = address
  for (let i = hops.length - 1; i >= 0; i--) {
    const hop = hops[i]!.trim()
    if (hop.length === 0) continue
    const parsed = AddressRanges.canonical(hop)
    if (parsed === undefined) return address
    if (!AddressRanges.contains(trusted, parsed)) return parsed
    client = parsed
  }
  return client
}

/**
 * The client address from the peer and `X-Forwarded-For`, behind `trustedProxies`
 * (throws on an entry that is not one).
 *
 * @since 1.0.0
 * @category constructors
 */
export const fromPeer = (
  peer: string,
  forwardedFor: string | undefined,
  trustedProxies: ReadonlyArray<string>
): string => behind(trustedList(trustedProxies), peer, forwardedFor)

/**
 * The client address of a request, behind `trustedProxies` (read once; throws
 * on an entry that is not one).
 *
 * @since 1.0.0
 * @category constructors
 */
export const make = (
  trustedProxies: ReadonlyArray<string>
): (request: Pick<HttpExchange.Request, "headers" | "remoteAddress">) => string => {
  const trusted = trustedList(trustedProxies)
  return (request) => {
    const forwardedFor = request.headers["x-forwarded-for"]
    return behind(
      trusted,
      request.remoteAddress ?? unknown,
      typeof forwardedFor === "string" || forwardedFor === undefined ? forwardedFor : forwardedFor.join(",")
    )
  }
}
