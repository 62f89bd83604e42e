/**
 * Addresses and CIDR ranges of IPv4 and IPv6, matched with node:net's `BlockList` (record 0030).
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

/** The longest IP address text: six IPv6 groups and a dotted IPv4 address. @internal */
export const maxLength = 45

/** An IPv4-mapped IPv6 address in canonical form, its last two groups captured. */
const mapped = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/

/**
 * `text` as an IP address in canonical form (RFC 5952 for IPv6, IPv4-mapped as
 * IPv4); `undefined` when it is not an IP address. @internal
 */
export const canonical = (text: string): string | undefined => {
  if (text.length > maxLength) return undefined
  const version = isIP(text)
  if (version === 4) return text
  if (version !== 6 || text.includes("%")) return undefined
  const address = new URL(`http://[${text}]/`).hostname.slice(1, -1)
  const v4 = mapped.exec(address)
  if (v4 === null) return address
  const high = parseInt(v4[1]!, 16)
  const low = parseInt(v4[2]!, 16)
  return `${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`
}
