/**
 * The address of the client a request comes from, which requests without a
 * valid key are limited by. It is the socket's peer address; `X-Forwarded-For`
 * is read only when that peer is a configured trusted proxy, and then the
 * client is the right-most address in it that is not itself a trusted proxy.
 *
 * @since 1.0.0
 */
import * as HttpExchange from "./HttpExchange.js"

/**
 * The address used when the peer is unknown (a web handler called without one).
 *
 * @since 1.0.0
 * @category constants
 */
export const unknown = "unknown"

/**
 * `::ffff:10.0.0.1` and `10.0.0.1` are the same client.
 *
 * @since 1.0.0
 * @category constructors
 */
export const normalize = (address: string): string => {
  const trimmed = address.trim().toLowerCase()
  return trimmed.startsWith("::ffff:") && trimmed.includes(".") ? trimmed.slice("::ffff:".length) : trimmed
}

/** The client behind `trusted` proxies, from the peer address and the `X-Forwarded-For` value. */
const behind = (
  trusted: ReadonlySet<string>,
  peer: string,
  forwardedFor: string | undefined
): string => {
  const address = normalize(peer)
  if (trusted.size === 0 || forwardedFor === undefined || !trusted.has(address)) return address
  const hops = forwardedFor.split(",").map(normalize).filter((hop) => hop.length > 0)
  for (let i = hops.length - 1; i >= 0; i--) {
    if (!trusted.has(hops[i]!)) return hops[i]!
  }
  return hops[0] ?? address
}

/**
 * The client address from the peer address and the `X-Forwarded-For` value.
 *
 * @since 1.0.0
 * @category constructors
 */
export const fromPeer = (
  peer: string,
  forwardedFor: string | undefined,
  trustedProxies: ReadonlyArray<string>
): string => behind(new Set(trustedProxies.map(normalize)), peer, forwardedFor)

/**
 * The client address of a request, behind `trustedProxies` (normalized once).
 *
 * @since 1.0.0
 * @category constructors
 */
export const make = (trustedProxies: ReadonlyArray<string>): (request: HttpExchange.Request) => string => {
  const trusted: ReadonlySet<string> = new Set(trustedProxies.map(normalize))
  return (request) => {
    const forwardedFor = request.headers["x-forwarded-for"]
    return behind(
      trusted,
      request.remoteAddress ?? unknown,
      typeof forwardedFor === "string" || forwardedFor === undefined ? forwardedFor : forwardedFor.join(",")
    )
  }
}
