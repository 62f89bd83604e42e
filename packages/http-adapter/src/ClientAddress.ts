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
): string => {
  const address = normalize(peer)
  if (trustedProxies.length === 0 || forwardedFor === undefined) return address
  const trusted = new Set(trustedProxies.map(normalize))
  if (!trusted.has(address)) return address
  const hops = forwardedFor.split(",").map(normalize).filter((hop) => hop.length > 0)
  for (let i = hops.length - 1; i >= 0; i--) {
    if (!trusted.has(hops[i]!)) return hops[i]!
  }
  return hops[0] ?? address
}

/**
 * The client address of a request.
 *
 * @since 1.0.0
 * @category constructors
 */
export const resolve = (request: HttpExchange.Request, trustedProxies: ReadonlyArray<string>): string => {
  const forwardedFor = request.headers["x-forwarded-for"]
  return fromPeer(
    request.remoteAddress ?? unknown,
    typeof forwardedFor === "string" || forwardedFor === undefined ? forwardedFor : forwardedFor.join(","),
    trustedProxies
  )
}
