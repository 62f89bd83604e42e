/**
 * The bucket a client address is counted in: IPv6 per /64, IPv4 each its own (record 0041).
 * @internal
 */
import { isIP } from "node:net"

/** The eight 16-bit groups of an IPv6 address `isIP` accepted (no zone id). */
const groupsOf = (address: string): ReadonlyArray<number> => {
  const parse = (part: string): Array<number> =>
    part === "" ? [] : part.split(":").flatMap((group) => {
      if (!group.includes(".")) return [parseInt(group, 16)]
      const [a, b, c, d] = group.split(".").map(Number) as [number, number, number, number]
      return [a * 256 + b, c * 256 + d]
    })
  const gap = address.indexOf("::")
  if (gap === -1) return parse(address)
  const head = parse(address.slice(0, gap))
  const tail = parse(address.slice(gap + 2))
  return [...head, ...Array<number>(8 - head.length - tail.length).fill(0), ...tail]
}

/**
 * The bucket of a client address (IPv4-mapped as IPv4, IPv6 as its /64
 * prefix); any other text is itself.
 * @internal
 */
export const bucketOf = (address: string): string => {
  const zone = address.indexOf("%")
  const bare = zone === -1 ? address : address.slice(0, zone)
  switch (isIP(bare)) {
    case 4:
      return bare
    case 6: {
      const groups = groupsOf(bare)
      if (groups.slice(0, 5).every((group) => group === 0) && groups[5] === 0xffff) {
        return [groups[6]! >> 8, groups[6]! & 255, groups[7]! >> 8, groups[7]! & 255].join(".")
      }
      return `${groups.slice(0, 4).map((group) => group.toString(16)).join(":")}::/64`
    }
    default:
      return address
  }
}
