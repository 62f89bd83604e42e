/**
 * What the host bindings read of a request alike: its path and query, and the
 * origin of the connection's local end.
 *
 * @internal
 */

/** `http://host:port` of the local end of a connection. */
export const localOriginOf = (socket: { readonly localAddress?: string | undefined; readonly localPort?: number | undefined }) =>
(): string | undefined => {
  const address = socket.localAddress
  if (address === undefined || socket.localPort === undefined) return undefined
  const host = address.startsWith("::ffff:") && address.includes(".")
    ? address.slice("::ffff:".length)
    : address.includes(":")
    ? `[${address}]`
    : address
  return `http://${host}:${socket.localPort}`
}

/** The path and query of a request target, absolute or not. */
export const pathAndQuery = (url: string): string => {
  if (url.startsWith("/")) return url
  const parsed = new URL(url)
  return parsed.pathname + parsed.search
}

