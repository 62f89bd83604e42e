import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit, TestClock } from "effect"
import * as fc from "effect/FastCheck"
import { Gone } from "../src/ApiError.js"
import * as DeprecationPolicy from "../src/DeprecationPolicy.js"

const sunset = Date.parse("2030-12-05T00:00:00Z")

/** Instants around the sunset: just before and after it, and anywhere in a century. */
const instant = fc.oneof(
  fc.integer({ min: -2_000, max: 2_000 }).map((offset) => sunset + offset),
  fc.integer({ min: -86_400_000, max: 86_400_000 }).map((offset) => sunset + offset),
  fc.integer({ min: 0, max: 4_102_444_800_000 })
)

describe("DeprecationPolicy", () => {
  it.effect.prop(
    "getPet is announced before the sunset instant and gone from it on",
    { now: instant },
    ({ now }) =>
      Effect.gen(function*() {
        const policy = yield* DeprecationPolicy.DeprecationPolicy
        const deprecation = policy.forOperation("getPet")
        yield* TestClock.setTime(now)
        const exit = yield* Effect.exit(policy.check("getPet"))
        expect(exit).toEqual(
          now >= sunset
            ? Exit.fail(new Gone({ operation: "getPet", sunset: new Date(sunset) }))
            : Exit.succeed(deprecation)
        )
        for (const operation of ["listPets", "createPet"] as const) {
          expect(policy.forOperation(operation)).toBeUndefined()
          expect(yield* policy.check(operation)).toBeUndefined()
        }
      }).pipe(Effect.provide(DeprecationPolicy.layer)),
    { fastCheck: { numRuns: 100 } }
  )

  it.effect("getPet answers until the last millisecond before the sunset and is gone at it", () =>
    Effect.gen(function*() {
      const policy = yield* DeprecationPolicy.DeprecationPolicy
      yield* TestClock.setTime(sunset - 1)
      expect(yield* policy.check("getPet")).toEqual(policy.forOperation("getPet"))
      yield* TestClock.adjust(1)
      const gone = yield* Effect.flip(policy.check("getPet"))
      expect(gone).toBeInstanceOf(Gone)
      expect(gone.code).toBe("gone")
      expect(gone.sunset.toISOString()).toBe("2030-12-05T00:00:00.000Z")
    }).pipe(Effect.provide(DeprecationPolicy.layer)))

  it("getPet: deprecated since 2025-01-01, sunset 2030-12-05, replaced by listPets at /pets", () => {
    const deprecation = DeprecationPolicy.make(DeprecationPolicy.deprecations).forOperation("getPet")
    expect(deprecation).toEqual({
      operation: "getPet",
      deprecatedAt: new Date("2025-01-01T00:00:00Z"),
      sunset: new Date("2030-12-05T00:00:00Z"),
      successor: { operation: "listPets", path: "/pets" }
    })
  })
})
