import { describe, expect, it } from "@effect/vitest"
import { Cause, ConfigProvider, Effect, Exit, Layer, Option } from "effect"
import * as AccessConfig from "../src/AccessConfig.js"

const read = (env: Record<string, string>) =>
  Effect.exit(AccessConfig.AccessConfig.pipe(
    Effect.provide(AccessConfig.layerConfig.pipe(
      Layer.provide(Layer.setConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(env)))))
    ))
  ))

describe("AccessConfig", () => {
  it.effect("layer fills in the defaults: production, ban after 10 for 900 s, 60 anonymous requests a minute, 100,000 addresses", () =>
    Effect.gen(function*() {
      expect(yield* Effect.provide(AccessConfig.AccessConfig, AccessConfig.layer())).toEqual({
        environment: "production",
        banAfter: 10,
        banSeconds: 900,
        anonymousPerMinute: 60,
        anonymousAddresses: 100_000
      })
      expect(yield* Effect.provide(AccessConfig.AccessConfig, AccessConfig.layer({ banAfter: 3 }))).toEqual({
        ...AccessConfig.defaults,
        banAfter: 3
      })
    }))

  it.effect("layerConfig reads ANIMAL_STORE_* settings, each defaulting", () =>
    Effect.gen(function*() {
      expect(yield* read({})).toEqual(Exit.succeed(AccessConfig.defaults))
      expect(
        yield* read({
          ANIMAL_STORE_ENV: "staging",
          ANIMAL_STORE_BAN_AFTER: "2",
          ANIMAL_STORE_BAN_SECONDS: "30",
          ANIMAL_STORE_ANONYMOUS_PER_MINUTE: "5",
          ANIMAL_STORE_ANONYMOUS_ADDRESSES: "1000"
        })
      ).toEqual(Exit.succeed({ environment: "staging", banAfter: 2, banSeconds: 30, anonymousPerMinute: 5, anonymousAddresses: 1000 }))
    }))

  it.effect("layerConfig refuses an unknown environment and anything but a positive integer", () =>
    Effect.gen(function*() {
      const invalid = [
        ["ANIMAL_STORE_ENV", "development"],
        ["ANIMAL_STORE_BAN_AFTER", "0"],
        ["ANIMAL_STORE_BAN_SECONDS", "-5"],
        ["ANIMAL_STORE_ANONYMOUS_PER_MINUTE", "1.5"],
        ["ANIMAL_STORE_BAN_AFTER", "ten"],
        ["ANIMAL_STORE_BAN_AFTER", "+3"],
        ["ANIMAL_STORE_BAN_SECONDS", "9007199254740992"],
        ["ANIMAL_STORE_ANONYMOUS_ADDRESSES", "0"]
      ] as const
      for (const [name, value] of invalid) {
        const exit = yield* read({ [name]: value })
        const error = Exit.isFailure(exit) ? Option.getOrUndefined(Cause.failureOption(exit.cause)) : undefined
        expect(error).toMatchObject({ _op: "InvalidData", path: [name] })
        expect(String(error)).toContain(name)
        expect((error as { message: string }).message).toBe(
          name === "ANIMAL_STORE_ENV"
            ? `expected production or staging, got "${value}"`
            : `expected a positive integer, got "${value}"`
        )
      }
    }))
})
