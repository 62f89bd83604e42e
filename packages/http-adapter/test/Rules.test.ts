import type { PlanRateLimiter } from "@animal-store/core"
import { describe, expect, it } from "@effect/vitest"
import { FastCheck as fc } from "effect"
import { credentialOf } from "../src/RequestHandler.js"
import * as ClientAddress from "../src/ClientAddress.js"
import { nextLink } from "../src/PetsHandlers.js"
import { isJsonContentType } from "../src/RequestBody.js"
import * as ResponseHeaders from "../src/ResponseHeaders.js"
import * as Routes from "../src/Routes.js"

const segment = fc.oneof(
  fc.constantFrom("v1", "pets", "store", "orders", "openapi.json", "docs", "", "1"),
  fc.string({ maxLength: 6 }).filter((s) => !s.includes("/") && !s.includes("?"))
)
const method = fc.constantFrom("GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS")
/** Paths near the routes (known paths, a pet id segment, one segment changed) and random ones. */
const pathParts = fc.oneof(
  fc.constantFrom(["v1", "pets"], ["v1", "openapi.json"], ["v1", "docs"], ["store", "orders"], ["v1", "store", "orders"]),
  segment.map((id) => ["v1", "pets", id]),
  fc.tuple(fc.constantFrom(["v1", "pets"], ["v1", "docs"]), fc.nat(1), segment).map(([parts, i, s]) =>
    parts.map((part, j) => (j === i ? s : part))
  ),
  fc.array(segment, { minLength: 0, maxLength: 4 })
)

/** The routes of the interface, written out independently of `Routes`. */
const expected = (method: string, parts: ReadonlyArray<string>): Routes.Route => {
  const path = "/" + parts.join("/")
  const pets = path === "/v1/pets"
  const pet = parts.length === 3 && parts[0] === "v1" && parts[1] === "pets" && parts[2]!.length > 0
  const document = path === "/v1/openapi.json" || path === "/v1/docs"
  const refused = (allow: ReadonlyArray<string>): Routes.Route =>
    method === "OPTIONS" ? { _tag: "Options", allow } : { _tag: "MethodNotAllowed", allow }
  if (pets) {
    return method === "GET" || method === "HEAD"
      ? { _tag: "Operation", operation: "listPets", params: {} }
      : method === "POST"
      ? { _tag: "Operation", operation: "createPet", params: {} }
      : refused(["GET", "HEAD", "OPTIONS", "POST"])
  }
  if (pet) {
    return method === "GET" || method === "HEAD"
      ? { _tag: "Operation", operation: "getPet", params: { petId: parts[2]! } }
      : refused(["GET", "HEAD", "OPTIONS"])
  }
  if (document) return method === "GET" || method === "HEAD" ? { _tag: "Document" } : refused(["GET", "HEAD", "OPTIONS"])
  return { _tag: "NotFound" }
}

describe("Routes", () => {
  it.prop("routes every method and path as the interface does (404, 405 with Allow)", [method, pathParts], ([method, parts]) => {
    expect(Routes.match(method, "/" + parts.join("/"))).toEqual(expected(method, parts))
  })

  it("serves /store/orders nowhere", () => {
    for (const m of ["GET", "POST"]) expect(Routes.match(m, "/store/orders")).toEqual({ _tag: "NotFound" })
    expect(Routes.match("GET", "/v1/store/orders")).toEqual({ _tag: "NotFound" })
  })

  it("strips the query string", () => {
    expect(Routes.pathOf("/v1/pets?limit=1&a=/b")).toBe("/v1/pets")
    expect(Routes.pathOf("/v1/pets")).toBe("/v1/pets")
  })
})

describe("the bearer credential", () => {
  const token = fc.stringMatching(/^[\x21-\x7e]{1,40}$/)

  it.prop("is the token of a Bearer header, whatever the case of the scheme", [
    token,
    fc.constantFrom("Bearer", "bearer", "BEARER", "bEaReR"),
    fc.integer({ min: 1, max: 3 })
  ], ([value, scheme, spaces]) => {
    expect(credentialOf(`${scheme}${" ".repeat(spaces)}${value}`)).toBe(value)
  })

  it.prop("is absent for another scheme or no token", [
    fc.constantFrom("Basic", "Token", "Digest", "Bearerx", ""),
    token
  ], ([scheme, value]) => {
    expect(credentialOf(`${scheme} ${value}`)).toBeUndefined()
  })

  it("is absent without the header, or with an empty token", () => {
    expect(credentialOf(undefined)).toBeUndefined()
    expect(credentialOf("Bearer")).toBeUndefined()
    expect(credentialOf("Bearer   ")).toBeUndefined()
    expect(credentialOf("Bearer a b")).toBeUndefined()
  })
})

describe("the JSON media type", () => {
  const parameter = fc.stringMatching(/^[a-z]{1,8}=[a-zA-Z0-9-]{1,8}$/)

  it.prop("is application/json in any case, with any parameters", [
    fc.constantFrom("application/json", "Application/JSON", "APPLICATION/JSON"),
    fc.array(parameter, { maxLength: 3 })
  ], ([type, parameters]) => {
    expect(isJsonContentType([type, ...parameters].join("; "))).toBe(true)
  })

  it.prop("is nothing else", [
    fc.string({ maxLength: 30 }).filter((s) => s.split(";")[0]!.trim().toLowerCase() !== "application/json")
  ], ([type]) => {
    expect(isJsonContentType(type)).toBe(false)
  })

  it("is required", () => {
    expect(isJsonContentType(undefined)).toBe(false)
    expect(isJsonContentType("application/jsonx")).toBe(false)
    expect(isJsonContentType("application/problem+json")).toBe(false)
  })
})

describe("the client address", () => {
  const ip = fc.ipV4()

  it.prop("is the peer when the peer is not a trusted proxy, whatever X-Forwarded-For says", [
    ip,
    fc.option(fc.array(ip, { minLength: 1, maxLength: 3 }).map((hops) => hops.join(", ")), { nil: undefined }),
    fc.array(ip, { maxLength: 2 })
  ], ([peer, forwardedFor, trusted]) => {
    fc.pre(!trusted.includes(peer))
    expect(ClientAddress.fromPeer(peer, forwardedFor, trusted)).toBe(peer)
  })

  it.prop("is the right-most untrusted hop of X-Forwarded-For when the peer is trusted", [
    ip,
    fc.array(ip, { minLength: 1, maxLength: 3 }),
    ip
  ], ([client, proxies, peer]) => {
    fc.pre(!proxies.includes(client) && client !== peer)
    const trusted = [peer, ...proxies]
    expect(ClientAddress.fromPeer(peer, [client, ...proxies].join(", "), trusted)).toBe(client)
  })

  it("treats IPv4-mapped IPv6 peers as IPv4", () => {
    expect(ClientAddress.fromPeer("::ffff:10.0.0.1", "192.0.2.9", ["10.0.0.1"])).toBe("192.0.2.9")
    expect(ClientAddress.fromPeer("::ffff:10.0.0.1", undefined, [])).toBe("10.0.0.1")
  })
})

describe("the rate-limit fields", () => {
  interface Usage {
    readonly limit: number
    readonly used: number
  }
  const usage: fc.Arbitrary<Usage> = fc.record({
    limit: fc.integer({ min: 1, max: 100_000 }),
    used: fc.integer({ min: 0, max: 100_000 })
  })

  /** The window of `name` at `nowSeconds`: it resets at the end of the fixed window holding that second. */
  const windowAt = (
    name: "minute" | "day",
    seconds: number,
    nowSeconds: number,
    { limit, used }: Usage
  ): PlanRateLimiter.RateLimitWindow => ({
    name,
    seconds,
    limit,
    remaining: Math.max(0, limit - used),
    reset: (Math.floor(nowSeconds / seconds) + 1) * seconds
  })

  it.prop("report the chosen window in X-RateLimit-* and every window in RateLimit and RateLimit-Policy", [
    usage,
    usage,
    fc.integer({ min: 0, max: 2_000_000_000 }),
    fc.integer({ min: 0, max: 999 }),
    fc.constantFrom("minute", "day")
  ], ([minuteUsage, dayUsage, nowSeconds, millis, reportedName]) => {
    const minute = windowAt("minute", 60, nowSeconds, minuteUsage)
    const day = windowAt("day", 86_400, nowSeconds, dayUsage)
    const reported = reportedName === "minute" ? minute : day
    const fields = ResponseHeaders.rateLimit(
      { outcome: "Accepted", reported, windows: [minute, day], retryAfter: undefined },
      nowSeconds * 1000 + millis
    )
    expect(fields["x-ratelimit-limit"]).toBe(String(reported.limit))
    expect(fields["x-ratelimit-remaining"]).toBe(String(reported.remaining))
    expect(fields["x-ratelimit-reset"]).toBe(String(reported.reset))
    expect(fields["ratelimit-policy"]).toBe(`"minute";q=${minute.limit};w=60, "day";q=${day.limit};w=86400`)
    // Seconds to each reset, counted from the start of the current second (1 to 60, 1 to 86,400).
    expect(fields["ratelimit"]).toBe(
      `"minute";r=${minute.remaining};t=${minute.reset - nowSeconds}, "day";r=${day.remaining};t=${day.reset - nowSeconds}`
    )
  })
})

describe("the next link", () => {
  it.prop("carries the cursor, limit and status so that following it continues the listing", [
    fc.string({ minLength: 1, maxLength: 30 }),
    fc.option(fc.integer({ min: 1, max: 100 }).map(String), { nil: undefined }),
    fc.option(fc.constantFrom("available", "pending", "sold"), { nil: undefined })
  ], ([cursor, limit, status]) => {
    const link = nextLink({ limit, status }, cursor)
    const target = /^<([^>]+)>; rel="next"$/.exec(link)![1]!
    const url = new URL(target, "http://host")
    expect(url.pathname).toBe("/v1/pets")
    expect(url.searchParams.get("cursor")).toBe(cursor)
    expect(url.searchParams.get("limit")).toBe(limit ?? null)
    expect(url.searchParams.get("status")).toBe(status ?? null)
  })
})
