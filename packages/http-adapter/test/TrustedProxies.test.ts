/**
 * Trusted proxies as addresses and CIDR ranges, IPv4 and IPv6: an address is
 * in a range when its first `prefix` bits are the range's, computed here on
 * the numbers (independently of node:net's `BlockList`), whatever way the
 * addresses are written; an IPv4-mapped IPv6 address is its IPv4 address.
 */
import { describe, expect, it } from "@effect/vitest"
import { Either, FastCheck as fc } from "effect"
import * as ClientAddress from "../src/ClientAddress.js"

// IPv4 and IPv6 addresses as numbers, and their text ---------------------------------------------

const v4 = fc.integer({ min: 0, max: 2 ** 32 - 1 }).map(BigInt)
const v6 = fc.bigInt({ min: 0n, max: 2n ** 128n - 1n })

const v4Text = (n: bigint): string => [24n, 16n, 8n, 0n].map((shift) => String((n >> shift) & 255n)).join(".")

/** An IPv6 address in one of its spellings: full, or the longest run of zero groups compressed; any case. */
const v6Text = (n: bigint, compress: boolean, upper: boolean): string => {
  const groups = [112n, 96n, 80n, 64n, 48n, 32n, 16n, 0n].map((shift) => ((n >> shift) & 0xffffn).toString(16))
  let text = groups.join(":")
  if (compress) {
    let best = { at: -1, length: 0 }
    for (let at = 0; at < 8; at++) {
      let length = 0
      while (at + length < 8 && groups[at + length] === "0") length++
      if (length > best.length) best = { at, length }
    }
    if (best.length >= 2) {
      text = `${groups.slice(0, best.at).join(":")}::${groups.slice(best.at + best.length).join(":")}`
    }
  }
  return upper ? text.toUpperCase() : text
}

/** An IPv6 address with spellings, biased towards `near` (same leading bits) so that both outcomes occur. */
const v6Near = (near: bigint) =>
  fc.tuple(fc.integer({ min: 0, max: 128 }), v6).map(([keep, random]) => {
    const mask = keep === 0 ? 0n : ((1n << BigInt(keep)) - 1n) << BigInt(128 - keep)
    return (near & mask) | (random & ~mask & (2n ** 128n - 1n))
  })

const v4Near = (near: bigint) =>
  fc.tuple(fc.integer({ min: 0, max: 32 }), v4).map(([keep, random]) => {
    const mask = keep === 0 ? 0n : ((1n << BigInt(keep)) - 1n) << BigInt(32 - keep)
    return (near & mask) | (random & ~mask & 0xffffffffn)
  })

const inRange = (bits: number, range: bigint, prefix: number, address: bigint): boolean =>
  prefix === 0 || (range >> BigInt(bits - prefix)) === (address >> BigInt(bits - prefix))

/** Whether `client` is trusted: then the client behind it is the hop it forwards for. */
const trusts = (trustedProxies: ReadonlyArray<string>, peer: string): boolean =>
  ClientAddress.fromPeer(peer, "192.0.2.200", trustedProxies) === "192.0.2.200"

const spelling = fc.tuple(fc.boolean(), fc.boolean())

describe("trusted proxies", () => {
  it.prop(
    "an IPv4 address is trusted exactly when its first prefix bits are the range's, also written IPv4-mapped",
    [v4.chain((range) => fc.tuple(fc.constant(range), fc.integer({ min: 0, max: 32 }), v4Near(range))), fc.boolean()],
    ([[range, prefix, address], mapped]) => {
      fc.pre(v4Text(address) !== "192.0.2.200")
      const peer = mapped ? `::ffff:${v4Text(address)}` : v4Text(address)
      expect(trusts([`${v4Text(range)}/${prefix}`], peer)).toBe(inRange(32, range, prefix, address))
    }
  )

  it.prop(
    "an IPv6 address is trusted exactly when its first prefix bits are the range's, however either is written",
    [v6.chain((range) => fc.tuple(fc.constant(range), fc.integer({ min: 0, max: 128 }), v6Near(range))), spelling, spelling],
    ([[range, prefix, address], [compressRange, upperRange], [compressPeer, upperPeer]]) => {
      const entry = `${v6Text(range, compressRange, upperRange)}/${prefix}`
      const peer = v6Text(address, compressPeer, upperPeer)
      // ::ffff:192.0.2.200 would be the forwarded client itself
      fc.pre(address !== 0xffffc00002c8n)
      expect(trusts([entry], peer)).toBe(inRange(128, range, prefix, address))
    }
  )

  /** An address as its text and the number it names (an IPv4-mapped IPv6 address names its IPv4 one). */
  const address = fc.oneof(
    v4.map((n) => ({ text: v4Text(n), names: `4:${n}` })),
    fc.tuple(v6, spelling).map(([n, [c, u]]) => ({
      text: v6Text(n, c, u),
      names: n >> 32n === 0xffffn ? `4:${n & 0xffffffffn}` : `6:${n}`
    }))
  )

  it.prop(
    "a single address is a range of one, in either family",
    [address, address],
    ([proxy, other]) => {
      // 4:3221226184 is 192.0.2.200, the forwarded client itself
      fc.pre(proxy.names !== other.names && other.names !== "4:3221226184" && proxy.names !== "4:3221226184")
      expect(trusts([proxy.text], proxy.text)).toBe(true)
      // different numbers are different addresses, however they are written
      expect(trusts([proxy.text], other.text)).toBe(false)
    }
  )

  it("an IPv4-mapped IPv6 range holds the IPv4 addresses it maps", () => {
    expect(trusts(["::ffff:10.0.0.0/104"], "10.1.2.3")).toBe(true)
    expect(trusts(["::ffff:10.0.0.0/104"], "11.1.2.3")).toBe(false)
    expect(trusts(["::ffff:10.0.0.1"], "10.0.0.1")).toBe(true)
  })

  it("the client is the right-most hop outside the ranges", () => {
    const trusted = ["10.0.0.0/8", "2001:db8::/32"]
    expect(ClientAddress.fromPeer("10.9.9.9", "198.51.100.7, 2001:db8::5, 10.1.1.1", trusted)).toBe("198.51.100.7")
    expect(ClientAddress.fromPeer("::ffff:10.9.9.9", "198.51.100.7, 203.0.113.9, 10.1.1.1", trusted)).toBe("203.0.113.9")
    expect(ClientAddress.fromPeer("192.0.2.1", "198.51.100.7", trusted)).toBe("192.0.2.1")
  })

  it("entries are addresses or CIDR ranges; anything else is refused with the reason", () => {
    for (const entry of ["10.0.0.1", "10.0.0.0/8", "0.0.0.0/0", " 10.0.0.0/8 ", "2001:db8::/32", "::/0", "::1", "::ffff:10.0.0.0/104"]) {
      expect(Either.isRight(ClientAddress.parseTrustedProxy(entry)), entry).toBe(true)
    }
    for (const entry of ["10.0.0.0/33", "2001:db8::/129", "10.0.0.0/", "10.0.0.0/-1", "10.0.0.0/8/8", "10.0.0.256", "proxy.local", "", "fe80::1%eth0", "[::1]", "10.0.0.0/ 8", "10.0.0.0/0x8"]) {
      const parsed = ClientAddress.parseTrustedProxy(entry)
      expect(Either.isLeft(parsed), entry).toBe(true)
      if (Either.isLeft(parsed)) expect(parsed.left).toContain(`"${entry}"`)
    }
    expect(() => ClientAddress.make(["10.0.0.0/8", "nope"])).toThrow(/nope/)
  })
})
