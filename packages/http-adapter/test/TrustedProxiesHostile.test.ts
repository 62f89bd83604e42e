/**
 * Addresses taken from `X-Forwarded-For` (behind a trusted proxy) and from the
 * socket are normalised: an IPv4-mapped IPv6 address is its IPv4 address,
 * IPv6 is in canonical form (RFC 5952), so every spelling of one address is
 * one client. A value that is not an IP address (leading zeros, a port,
 * brackets, a zone id, a name, thousands of characters) is ignored and the
 * connection's peer address is the client. Rate limits count IPv6 per /64;
 * the access log prints the client's own address.
 */
import { MemoryStore } from "@animal-store/memory-store"
import { describe, expect, it } from "@effect/vitest"
import { Effect, FastCheck as fc } from "effect"
import { isIP, SocketAddress } from "node:net"
import type * as AccessLog from "../src/AccessLog.js"
import * as ClientAddress from "../src/ClientAddress.js"
import { start } from "./support/TestServer.js"

// Addresses as numbers, their spellings, and RFC 5952's form computed here ------------------------

const v4 = fc.integer({ min: 0, max: 2 ** 32 - 1 })
const v6 = fc.oneof(
  fc.bigInt({ min: 0n, max: 2n ** 128n - 1n }),
  // with runs of zero groups, which the canonical form compresses
  fc.array(fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 0xffff })), { minLength: 8, maxLength: 8 }).map((groups) =>
    groups.reduce((n, group) => (n << 16n) | BigInt(group), 0n)
  )
)

const v4Text = (n: number): string => [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join(".")
const groupsOf = (n: bigint): Array<number> => [112n, 96n, 80n, 64n, 48n, 32n, 16n, 0n].map((s) => Number((n >> s) & 0xffffn))
const isMapped = (n: bigint) => n >> 32n === 0xffffn

/** RFC 5952: lowercase, no leading zeros, the first longest run of two or more zero groups as `::`. */
const rfc5952 = (n: bigint): string => {
  const groups = groupsOf(n).map((group) => group.toString(16))
  let best = { at: -1, length: 1 }
  for (let at = 0; at < 8; at++) {
    let length = 0
    while (at + length < 8 && groups[at + length] === "0") length++
    if (length > best.length) best = { at, length }
  }
  return best.at === -1
    ? groups.join(":")
    : `${groups.slice(0, best.at).join(":")}::${groups.slice(best.at + best.length).join(":")}`
}

/** Any spelling of an IPv6 address: groups padded or not, any zero run of two or more compressed, any case, the last 32 bits dotted. */
const v6Spelling = (n: bigint) =>
  fc.record({ pad: fc.boolean(), compress: fc.nat(), upper: fc.boolean(), dotted: fc.boolean() }).map(
    ({ compress, dotted, pad, upper }) => {
      const groups = groupsOf(n)
      let texts = groups.map((group) => (pad ? group.toString(16).padStart(4, "0") : group.toString(16)))
      if (dotted) texts = [...texts.slice(0, 6), v4Text(Number(n & 0xffffffffn))]
      const runs: Array<[number, number]> = []
      for (let at = 0; at < texts.length; at++) {
        for (let end = at + 2; end <= texts.length && groups.slice(at, end).every((g) => g === 0); end++) {
          if (!dotted || end <= 6) runs.push([at, end])
        }
      }
      let text = texts.join(":")
      if (runs.length > 0) {
        const [at, end] = runs[compress % runs.length]!
        text = `${texts.slice(0, at).join(":")}::${texts.slice(end).join(":")}`
      }
      return upper ? text.toUpperCase() : text
    }
  )

/** An IPv4 address with a leading zero in one of its parts (`10.077.0.1`). */
const v4LeadingZero = fc.tuple(v4, fc.integer({ min: 0, max: 3 }), fc.constantFrom("0", "00")).map(([n, at, zeros]) =>
  v4Text(n).split(".").map((part, i) => (i === at ? zeros + part : part)).join(".")
)

/** Texts that are not IP addresses, though close to one, and are not blank. */
const nearMiss = fc.oneof(
  v4LeadingZero,
  fc.tuple(v4, fc.integer({ min: 0, max: 65_535 })).map(([n, port]) => `${v4Text(n)}:${port}`),
  fc.tuple(v6, fc.integer({ min: 0, max: 65_535 })).map(([n, port]) => `[${rfc5952(n)}]:${port}`),
  v6.map((n) => `[${rfc5952(n)}]`),
  v6.map((n) => `${rfc5952(n)}%eth0`),
  fc.constantFrom("unknown", "localhost", "_", "1.2.3", "1.2.3.4.5", "::ffff:1.2.3", "1::2::3", "::g"),
  fc.integer({ min: 46, max: 4_000 }).map((length) => "1".repeat(length))
)

/** Texts that are not IP addresses: near misses, blank, or an address with spaces around it. */
const notAnAddress = fc.oneof(nearMiss, fc.constantFrom("", " "), v4.map((n) => ` ${v4Text(n)}`))

describe("ClientAddress.parse", () => {
  it.prop(
    "every spelling of an IPv6 address parses to its RFC 5952 form, the form node:net's inet_ntop writes",
    [v6.chain((n) => fc.tuple(fc.constant(n), v6Spelling(n)))],
    ([[n, text]]) => {
      fc.pre(!isMapped(n))
      expect(ClientAddress.parse(text)).toBe(rfc5952(n))
      // inet_ntop writes the deprecated IPv4-compatible ::/96 dotted (`::0.1.0.0`); RFC 5952 leaves that optional.
      if (n >> 32n !== 0n) expect(ClientAddress.parse(text)).toBe(new SocketAddress({ address: text, family: "ipv6" }).address)
    },
    { fastCheck: { numRuns: 500 } }
  )

  it.prop(
    "an IPv4 address is itself, and every spelling of it IPv4-mapped is it",
    [v4.chain((n) => fc.tuple(fc.constant(n), v6Spelling(0xffff00000000n + BigInt(n))))],
    ([[n, mapped]]) => {
      expect(ClientAddress.parse(v4Text(n))).toBe(v4Text(n))
      expect(ClientAddress.parse(mapped)).toBe(v4Text(n))
    },
    { fastCheck: { numRuns: 300 } }
  )

  it.prop("a text close to an address but not one does not parse", [notAnAddress], ([text]) => {
    expect(ClientAddress.parse(text)).toBeUndefined()
  })

  it.prop(
    "whatever the text, what parses is an address in its own canonical form, at most 45 characters",
    [fc.oneof(fc.string({ maxLength: 60 }), v6.chain(v6Spelling), v4.map(v4Text), notAnAddress)],
    ([text]) => {
      const parsed = ClientAddress.parse(text)
      if (parsed === undefined) return
      expect(isIP(parsed)).not.toBe(0)
      expect(ClientAddress.parse(parsed)).toBe(parsed)
      expect(parsed.length).toBeLessThanOrEqual(45)
    }
  )

  it("a peer address is normalised the same way; other text is kept", () => {
    expect(ClientAddress.normalize("::ffff:127.0.0.1")).toBe("127.0.0.1")
    expect(ClientAddress.normalize("2001:DB8:0:0::1")).toBe("2001:db8::1")
    expect(ClientAddress.normalize("unknown")).toBe("unknown")
  })
})

describe("X-Forwarded-For from a trusted proxy", () => {
  const trusted = ["10.0.0.0/8"]

  it.prop(
    "a client hop that does not parse gives the peer, whatever trusted hops follow it and whatever precedes it",
    [nearMiss, fc.array(fc.constantFrom("10.0.0.2", "10.1.2.3", "::ffff:10.9.9.9"), { maxLength: 3 }), fc.boolean()],
    ([hostile, proxies, withClientBefore]) => {
      const hops = [...(withClientBefore ? ["198.51.100.7"] : []), hostile, ...proxies]
      expect(ClientAddress.fromPeer("10.0.0.1", hops.join(", "), trusted)).toBe("10.0.0.1")
    }
  )

  it("the client is normalised; the peer is used when the header holds no address", () => {
    expect(ClientAddress.fromPeer("10.0.0.1", "2001:0DB8:0000::0001, 10.0.0.2", trusted)).toBe("2001:db8::1")
    expect(ClientAddress.fromPeer("::ffff:10.0.0.1", "::ffff:198.51.100.7", trusted)).toBe("198.51.100.7")
    expect(ClientAddress.fromPeer("10.0.0.1", "", trusted)).toBe("10.0.0.1")
    expect(ClientAddress.fromPeer("10.0.0.1", " , ,", trusted)).toBe("10.0.0.1")
    expect(ClientAddress.fromPeer("10.0.0.1", "198.51.100.7:5555", trusted)).toBe("10.0.0.1")
  })
})

describe("hostile X-Forwarded-For through a real server behind a trusted proxy", () => {
  /** A server trusting the test's own address, with a limit that no test reaches; its access log's clients. */
  const server = Effect.gen(function*() {
    const clients: Array<string> = []
    const writer: AccessLog.Writer = (entry) => clients.push(entry.client)
    const api = yield* start({
      ports: MemoryStore.layer,
      access: { anonymousPerMinute: 1_000 },
      adapter: { trustedProxies: ["127.0.0.1"], accessLog: writer }
    })
    /** The requests left in the client's bucket after a request forwarded for `forwardedFor` (none: no header). */
    const remaining = (forwardedFor?: string) =>
      Effect.map(
        api.request("/v1/pets", forwardedFor === undefined ? {} : { headers: { "x-forwarded-for": forwardedFor } }),
        (response) => Number(response.headers.get("x-ratelimit-remaining"))
      )
    return { clients, remaining }
  })

  it.scoped("six spellings of one IPv6 address share one limit, and are logged in canonical form", () =>
    Effect.gen(function*() {
      const { clients, remaining } = yield* server
      const spellings = [
        "2001:db8::7",
        "2001:DB8::7",
        "2001:0db8:0000:0000:0000:0000:0000:0007",
        "2001:db8:0:0:0:0:0:7",
        "2001:db8::0:0:7",
        "2001:db8::0.0.0.7"
      ]
      const left = []
      for (const spelling of spellings) left.push(yield* remaining(spelling))
      expect(left).toEqual([999, 998, 997, 996, 995, 994])
      expect(clients).toEqual(Array(6).fill("2001:db8::7"))
    }))

  it.scoped("IPv6 clients of one /64 share a limit and are logged each by its own address; IPv4-mapped is IPv4", () =>
    Effect.gen(function*() {
      const { clients, remaining } = yield* server
      expect(yield* remaining("2001:db8:0:1::a")).toBe(999)
      expect(yield* remaining("2001:db8:0:1:ffff::b")).toBe(998)
      expect(yield* remaining("2001:db8:0:2::a")).toBe(999)
      expect(yield* remaining("198.51.100.7")).toBe(999)
      expect(yield* remaining("::ffff:198.51.100.7")).toBe(998)
      expect(yield* remaining("::FFFF:c633:6407")).toBe(997)
      expect(clients).toEqual([
        "2001:db8:0:1::a",
        "2001:db8:0:1:ffff::b",
        "2001:db8:0:2::a",
        "198.51.100.7",
        "198.51.100.7",
        "198.51.100.7"
      ])
    }))

  it.scoped("a value that is not an IP address is ignored: the request counts in the peer's bucket, logged as the peer", () =>
    Effect.gen(function*() {
      const { clients, remaining } = yield* server
      const hostile = [
        "010.077.000.001",
        "10.77.0.1:5555",
        "[2001:db8::1]:443",
        "[2001:db8::1]",
        "fe80::1%eth0",
        "unknown",
        "1".repeat(4_000),
        `${"2001:db8::1,".repeat(300)}x`,
        "198.51.100.7, nonsense, 127.0.0.1",
        ""
      ]
      const left = [yield* remaining()]
      for (const value of hostile) left.push(yield* remaining(value))
      expect(left).toEqual(Array.from({ length: hostile.length + 1 }, (_, i) => 999 - i))
      expect(new Set(clients)).toEqual(new Set(["127.0.0.1"]))
      // The addresses behind those values have buckets of their own, untouched.
      expect(yield* remaining("10.77.0.1")).toBe(999)
      expect(yield* remaining("2001:db8::1")).toBe(999)
    }))
})
