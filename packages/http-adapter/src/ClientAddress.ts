/**
 * The address of the client a request comes from, which requests without a
 * valid key are limited by. It is the socket's peer address; `X-Forwarded-For`
 * is read only when that peer is a configured trusted proxy, and then the
 * client is the right-most address in it that is not itself a trusted proxy.
 *
 * @since 1.0.0
 */
import type * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import { Context, Effect, Option } from "effect"

/**
 * The peer address of a request that arrived through a host's web handler
 * (a web `Request` does not carry one): the host passes it per request.
 *
 * @since 1.0.0
 * @category tags
 */
export class RemoteAddress extends Context.Tag("@animal-store/http-adapter/RemoteAddress")<RemoteAddress, string>() {}

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
export const resolve = (
  request: HttpServerRequest.HttpServerRequest,
  trustedProxies: ReadonlyArray<string>
): Effect.Effect<string> =>
  Option.isSome(request.remoteAddress)
    ? Effect.succeed(fromPeer(request.remoteAddress.value, request.headers["x-forwarded-for"], trustedProxies))
    : Effect.map(
      Effect.serviceOption(RemoteAddress),
      (peer) => fromPeer(Option.getOrElse(peer, () => unknown), request.headers["x-forwarded-for"], trustedProxies)
    )
