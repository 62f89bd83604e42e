import { DeprecationPolicy } from "@animal-store/core"
import { describe, expect, it } from "@effect/vitest"
import * as fc from "effect/FastCheck"
import * as ResponseHeaders from "../src/ResponseHeaders.js"

describe("ResponseHeaders.deprecation", () => {
  it("headers carry the exact dates and the successor link", () => {
    const deprecation = DeprecationPolicy.make(DeprecationPolicy.deprecations).forOperation("getPet")!
    expect(ResponseHeaders.deprecation(deprecation)).toEqual({
      deprecation: "@1735689600",
      sunset: "Thu, 05 Dec 2030 00:00:00 GMT",
      link: "</v1/pets>; rel=\"successor-version\""
    })
    expect(ResponseHeaders.deprecation(deprecation, "/api/v1").link).toBe("</api/v1/pets>; rel=\"successor-version\"")
  })

  it.prop(
    "headers round-trip any whole-second dates",
    {
      deprecatedAt: fc.integer({ min: 0, max: 253_402_300_799 }),
      sunset: fc.integer({ min: 0, max: 253_402_300_799 })
    },
    ({ deprecatedAt, sunset }) => {
      const headers = ResponseHeaders.deprecation({
        operation: "getPet",
        deprecatedAt: new Date(deprecatedAt * 1000),
        sunset: new Date(sunset * 1000),
        successor: { operation: "listPets", path: "/pets" }
      })
      expect(headers.deprecation).toBe(`@${deprecatedAt}`)
      expect(headers.sunset).toMatch(/^(Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT$/)
      expect(Date.parse(headers.sunset)).toBe(sunset * 1000)
    }
  )
})
