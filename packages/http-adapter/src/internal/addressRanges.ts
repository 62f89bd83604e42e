/**
 * Addresses and CIDR ranges of IPv4 and IPv6, matched with node:net's
 * `BlockList` (subnets of both families; an IPv4-mapped IPv6 address matches
 * IPv4 ranges and the reverse).
 *
 * @internal
 */
import { BlockList, isIP } from "node:net"

/** An address (`prefix` its full length) or a CIDR range. @internal */
export interface Range {
  readonly address: string
  readonly prefix: number
  readonly family: "ipv4" | "ipv6"
}

const prefixDigits = /^[0-9]{1,3}$/

/** An address or `address/prefix`; `undefined` when it is neither. @internal */
export const parse = (entry: string): Range | undefined => {
  const slash = entry.indexOf("/")
  const address = slash === -1 ? entry : entry.slice(0, slash)
  const version = address.includes("%") ? 0 : isIP(address)
  if (version === 0) return undefined
  const family = version === 4 ? "ipv4" : "ipv6"
  const bits = version === 4 ? 32 : 128
  if (slash === -1) return { address, prefix: bits, family }
  const prefix = entry.slice(slash + 1)
  return prefixDigits.test(prefix) && Number(prefix) <= bits ? { address, prefix: Number(prefix), family } : undefined
}

/** A `BlockList` of the ranges. @internal */
export const blockList = (ranges: ReadonlyArray<Range>): BlockList => {
  const list = new BlockList()
  for (const range of ranges) {
    if (range.prefix === (range.family === "ipv4" ? 32 : 128)) list.addAddress(range.address, range.family)
    else list.addSubnet(range.address, range.prefix, range.family)
  }
  return list
}

/** Whether `address` (any text) is an address within `list`. @internal */
export const contains = (list: BlockList, address: string): boolean => {
  const version = isIP(address)
  return version !== 0 && list.check(address, version === 4 ? "ipv4" : "ipv6")
}
