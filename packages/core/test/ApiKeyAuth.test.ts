import { describe, expect, it } from "@effect/vitest"
import { createHash } from "node:crypto"
import { Effect, Layer, Option, Redacted, TestClock } from "effect"
import * as fc from "effect/FastCheck"
import * as AccessConfig from "../src/AccessConfig.js"
import { InvalidRequest, Unauthorized } from "../src/ApiError.js"
import type { Environment } from "../src/ApiKey.js"
import { ApiKey } from "../src/ApiKey.js"
import * as ApiKeyAuth from "../src/ApiKeyAuth.js"
import { ApiKeyStore } from "../src/ApiKeyStore.js"
import type { Plan } from "../src/Plan.js"
import { limitsByPlan } from "../src/Plan.js"
import * as ApiKeySecret from "../src/internal/apiKeySecret.js"
import * as ModelApiKeyStore from "./internal/ModelApiKeyStore.js"

const authLayer = (settings: Partial<AccessConfig.AccessSettings> = {}) =>
  ApiKeyAuth.layer.pipe(Layer.provideMerge(Layer.merge(ModelApiKeyStore.layer, AccessConfig.layer(settings))))

const sha256 = (secret: string) => createHash("sha256").update(secret).digest("hex")

const reasonOf = (credential: string | undefined) =>
  Effect.flatMap(ApiKeyAuth.ApiKeyAuth, (auth) => Effect.flip(auth.authenticate(credential))).pipe(
    Effect.map((error) => (error._tag === "Unauthorized" ? error.reason : error._tag))
  )

const bodyChar = fc.constantFrom(..."ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-")
const wellFormed = fc.record({
  prefix: fc.constantFrom("ask_live_", "ask_test_"),
  body: fc.string({ unit: bodyChar, minLength: 16, maxLength: 64 })
}).map(({ body, prefix }) => prefix + body)
const pattern = /^ask_(live|test)_[A-Za-z0-9_-]{16,}$/
/** A well-formed key with one character inserted anywhere: mostly malformed, sometimes not. */
const nearMiss = fc.record({ key: wellFormed, at: fc.nat(), char: fc.oneof(
  fc.constantFrom(".", " ", "+", "/", "=", "~", "%", "é", "\n", "\u0000", "a", "_"),
  fc.string({ minLength: 1, maxLength: 1, unit: "binary" })
) })
  .map(({ at, char, key }) => key.slice(0, at % key.length) + char + key.slice(at % key.length))

describe("ApiKeyAuth", () => {
  it.effect("issues a random secret of 256 bits, shown once and stored only as its SHA-256 digest", () =>
    Effect.gen(function*() {
      const auth = yield* ApiKeyAuth.ApiKeyAuth
      const store = yield* ApiKeyStore
      yield* TestClock.setTime(Date.UTC(2026, 0, 2, 3, 4, 5, 678))
      const { key, secret } = yield* auth.issue({ plan: "pro" })
      const value = Redacted.value(secret)
      expect(value).toMatch(/^ask_live_[A-Za-z0-9_-]{43}$/)
      expect(Buffer.from(value.slice("ask_live_".length), "base64url").length).toBe(32)
      expect(String(secret)).not.toContain(value.slice(9))
      expect(key.digest).toBe(sha256(value))
      expect(key.prefix).toBe(value.slice(0, 13))
      expect(key.id).toMatch(/^key_[A-Za-z0-9_-]{16}$/)
      expect(value).not.toContain(key.id.slice(4))
      expect(key).toEqual(
        new ApiKey({
          id: key.id,
          prefix: key.prefix,
          digest: sha256(value),
          plan: "pro",
          limits: limitsByPlan.pro,
          environment: "production",
          createdAt: new Date(Date.UTC(2026, 0, 2, 3, 4, 5, 678)),
          revokedAt: Option.none()
        })
      )
      const stored = JSON.stringify(yield* store.list)
      expect(stored).not.toContain(value.slice(13))
      expect(yield* store.findByDigest(sha256(value))).toEqual(Option.some(key))
    }).pipe(Effect.provide(authLayer())))

  it.effect("issued secrets and ids are distinct", () =>
    Effect.gen(function*() {
      const auth = yield* ApiKeyAuth.ApiKeyAuth
      const issued = yield* Effect.forEach(Array.from({ length: 200 }), () => auth.issue({ plan: "free" }))
      expect(new Set(issued.map(({ secret }) => Redacted.value(secret))).size).toBe(200)
      expect(new Set(issued.map(({ key }) => key.id)).size).toBe(200)
      expect((yield* auth.list).length).toBe(200)
    }).pipe(Effect.provide(authLayer())))

  it.effect("an issued key authenticates to its principal", () =>
    Effect.gen(function*() {
      const auth = yield* ApiKeyAuth.ApiKeyAuth
      for (const plan of ["free", "pro", "business"] as const) {
        const { key, secret } = yield* auth.issue({ plan })
        expect(yield* auth.authenticate(Redacted.value(secret))).toEqual({
          keyId: key.id,
          plan,
          limits: limitsByPlan[plan],
          environment: "production",
          window: "fixed"
        })
      }
      const limits = { perMinute: 7, perDay: 70 }
      const { key, secret } = yield* auth.issue({ plan: "enterprise", limits })
      expect(yield* auth.authenticate(Redacted.value(secret))).toEqual({
        keyId: key.id,
        plan: "enterprise",
        limits,
        environment: "production",
        window: "fixed"
      })
    }).pipe(Effect.provide(authLayer())))

  it.effect("missing, malformed, unknown, revoked and wrong-environment credentials are distinct failures", () =>
    Effect.gen(function*() {
      const auth = yield* ApiKeyAuth.ApiKeyAuth
      const live = Redacted.value((yield* auth.issue({ plan: "free" })).secret)
      const test = Redacted.value((yield* auth.issue({ plan: "free", environment: "staging" })).secret)
      const revoked = yield* auth.issue({ plan: "free" })
      expect((yield* auth.authenticate(Redacted.value(revoked.secret))).keyId).toBe(revoked.key.id)
      yield* auth.revoke(revoked.key.id)

      expect(yield* reasonOf(undefined)).toBe("missing")
      expect(yield* reasonOf("")).toBe("malformed")
      expect(yield* reasonOf(`Bearer ${live}`)).toBe("malformed")
      expect(yield* reasonOf(live.slice(0, 25))).toBe("unknown")
      expect(yield* reasonOf(live + "x")).toBe("unknown")
      expect(yield* reasonOf(Redacted.value(revoked.secret))).toBe("revoked")
      expect(yield* reasonOf(test)).toBe("wrong_environment")
      const unauthorized = yield* Effect.flip(auth.authenticate(test))
      expect(unauthorized).toBeInstanceOf(Unauthorized)
      expect(unauthorized.message).not.toContain(test)
    }).pipe(Effect.provide(authLayer())))

  it.effect("a staging process accepts staging keys and refuses production ones", () =>
    Effect.gen(function*() {
      const auth = yield* ApiKeyAuth.ApiKeyAuth
      const { key, secret } = yield* auth.issue({ plan: "business" })
      expect(key.environment).toBe("staging")
      expect(Redacted.value(secret)).toMatch(/^ask_test_/)
      expect((yield* auth.authenticate(Redacted.value(secret))).environment).toBe("staging")
      const live = Redacted.value((yield* auth.issue({ plan: "business", environment: "production" })).secret)
      expect(yield* reasonOf(live)).toBe("wrong_environment")
    }).pipe(Effect.provide(authLayer({ environment: "staging" }))))

  it.effect.prop(
    "any credential not of the key format is malformed, any unknown well-formed one is unknown",
    { anything: fc.oneof(fc.string({ maxLength: 80 }), nearMiss), candidate: wellFormed },
    ({ anything, candidate }) =>
      Effect.gen(function*() {
        const auth = yield* ApiKeyAuth.ApiKeyAuth
        yield* auth.issue({ plan: "free" })
        expect(yield* reasonOf(anything)).toBe(pattern.test(anything) ? "unknown" : "malformed")
        expect(yield* reasonOf(candidate)).toBe("unknown")
        expect(yield* reasonOf(candidate.slice(0, 24))).toBe("malformed")
      }).pipe(Effect.provide(authLayer())),
    { fastCheck: { numRuns: 60 } }
  )

  it.effect("a secret is accepted only as its key's current digest, or its previous one before the grace ends, whatever the store answers", () =>
    Effect.gen(function*() {
      const auth = yield* ApiKeyAuth.ApiKeyAuth
      yield* TestClock.setTime(5_000)
      const secret = "ask_live_" + "a".repeat(20)
      const previous = "ask_live_" + "b".repeat(20)
      expect((yield* auth.authenticate(secret)).keyId).toBe("key_found")
      expect((yield* auth.authenticate(previous)).keyId).toBe("key_found")
      // A store answering this key for a digest it does not hold is not believed.
      expect((yield* Effect.flip(auth.authenticate("ask_live_" + "c".repeat(20)))).reason).toBe("rotated")
      yield* TestClock.setTime(9_000)
      expect((yield* Effect.flip(auth.authenticate(previous))).reason).toBe("rotated")
      expect((yield* auth.authenticate(secret)).keyId).toBe("key_found")
    }).pipe(
      Effect.provide(ApiKeyAuth.layer),
      Effect.provide(AccessConfig.layer()),
      Effect.provide(Layer.succeed(ApiKeyStore, {
        insert: () => Effect.die("unexpected"),
        findByDigest: () =>
          Effect.succeed(Option.some(
            new ApiKey({
              id: "key_found",
              prefix: "ask_live_aaaa",
              digest: sha256("ask_live_" + "a".repeat(20)),
              plan: "free",
              limits: limitsByPlan.free,
              environment: "production",
              createdAt: new Date(0),
              revokedAt: Option.none(),
              previousSecret: Option.some({
                digest: sha256("ask_live_" + "b".repeat(20)),
                prefix: "ask_live_bbbb",
                until: new Date(9_000)
              })
            })
          )),
        list: Effect.die("unexpected"),
        rotate: () => Effect.die("unexpected"),
        revoke: () => Effect.die("unexpected")
      }))
    ))

  it.effect("a malformed credential never reaches the store", () =>
    Effect.gen(function*() {
      const auth = yield* ApiKeyAuth.ApiKeyAuth
      expect((yield* Effect.flip(auth.authenticate("ask_live_short"))).reason).toBe("malformed")
    }).pipe(
      Effect.provide(ApiKeyAuth.layer),
      Effect.provide(AccessConfig.layer()),
      Effect.provide(Layer.succeed(ApiKeyStore, {
        insert: () => Effect.die("unexpected"),
        findByDigest: () => Effect.die("unexpected"),
        list: Effect.die("unexpected"),
        rotate: () => Effect.die("unexpected"),
        revoke: () => Effect.die("unexpected")
      }))
    ))

  it.effect("revocation takes effect on the next request and keeps its first instant", () =>
    Effect.gen(function*() {
      const auth = yield* ApiKeyAuth.ApiKeyAuth
      yield* TestClock.setTime(1_000_000)
      const { key, secret } = yield* auth.issue({ plan: "free" })
      const other = yield* auth.issue({ plan: "free" })
      yield* auth.authenticate(Redacted.value(secret))
      yield* TestClock.adjust(5_000)
      const revoked = yield* auth.revoke(key.id)
      expect(Option.map(revoked, (k) => k.revokedAt)).toEqual(Option.some(Option.some(new Date(1_005_000))))
      expect(yield* reasonOf(Redacted.value(secret))).toBe("revoked")
      yield* TestClock.adjust(5_000)
      expect(yield* auth.revoke(key.id)).toEqual(revoked)
      expect(yield* auth.revoke("key_nonexistent")).toEqual(Option.none())
      expect((yield* auth.authenticate(Redacted.value(other.secret))).keyId).toBe(other.key.id)
      expect((yield* auth.list).map((k) => [k.id, Option.isSome(k.revokedAt)])).toEqual([
        [key.id, true],
        [other.key.id, false]
      ])
    }).pipe(Effect.provide(authLayer())))

  it.effect("issue refuses enterprise without limits and limits on the fixed plans", () =>
    Effect.gen(function*() {
      const auth = yield* ApiKeyAuth.ApiKeyAuth
      const refused: ReadonlyArray<readonly [ApiKeyAuth.IssueOptions, string]> = [
        [{ plan: "enterprise" }, "limits"],
        [{ plan: "enterprise", limits: { perMinute: 0, perDay: 10 } }, "limits.perMinute"],
        [{ plan: "enterprise", limits: { perMinute: 10, perDay: 1.5 } }, "limits.perDay"],
        [{ plan: "free", limits: { perMinute: 10, perDay: 10 } }, "limits"],
        [{ plan: "platinum" as Plan }, "plan"],
        [{ plan: "pro", environment: "qa" as Environment }, "environment"]
      ]
      for (const [options, path] of refused) {
        const error = yield* Effect.flip(auth.issue(options))
        expect(error).toBeInstanceOf(InvalidRequest)
        expect(error._tag === "InvalidRequest" && error.details[0]?.path).toBe(path)
        expect(error.message).toContain(`Invalid key options: ${path} `)
      }
      expect((yield* Effect.flip(auth.issue({ plan: "enterprise" }))).message).toBe(
        "Invalid key options: limits are required for an enterprise key (per minute and per day)"
      )
      for (const plan of ["free", "pro", "business"] as const) {
        const error = yield* Effect.flip(auth.issue({ plan, limits: { perMinute: 10, perDay: 10 } }))
        expect(error._tag === "InvalidRequest" && error.details).toEqual([
          { path: "limits", message: `are set only for enterprise keys; a ${plan} key has its plan's limits` }
        ])
      }
      expect(yield* auth.list).toEqual([])
    }).pipe(Effect.provide(authLayer())))

  it.effect("provision stores a chosen secret once, in the environment of its prefix", () =>
    Effect.gen(function*() {
      const auth = yield* ApiKeyAuth.ApiKeyAuth
      const secret = Redacted.make("ask_live_0123456789abcdefXYZ")
      const first = yield* auth.provision(secret, { plan: "pro" })
      const again = yield* auth.provision(secret, { plan: "pro" })
      expect(again).toEqual(first)
      expect(first.digest).toBe(sha256("ask_live_0123456789abcdefXYZ"))
      expect(first.prefix).toBe("ask_live_0123")
      expect(first.environment).toBe("production")
      expect(yield* auth.list).toEqual([first])
      expect((yield* auth.authenticate("ask_live_0123456789abcdefXYZ")).keyId).toBe(first.id)

      const staging = yield* auth.provision(Redacted.make("ask_test_0123456789abcdefXYZ"), {
        plan: "enterprise",
        limits: { perMinute: 2, perDay: 3 },
        environment: "staging"
      })
      expect([staging.environment, staging.limits]).toEqual(["staging", { perMinute: 2, perDay: 3 }])
      expect(yield* reasonOf("ask_test_0123456789abcdefXYZ")).toBe("wrong_environment")
    }).pipe(Effect.provide(authLayer())))

  it.effect("provision refuses a malformed secret or one of another environment, without printing it", () =>
    Effect.gen(function*() {
      const auth = yield* ApiKeyAuth.ApiKeyAuth
      const cases = [
        ["ask_live_tooShort", {}],
        ["ask_prod_0123456789abcdefXYZ", {}],
        ["ask_test_0123456789abcdefXYZ", {}],
        ["ask_live_0123456789abcdefXYZ", { environment: "staging" as const }],
        ["ask_live_0123456789abcdefXYZ", { plan: "gold" as Plan }]
      ] as const
      for (const [secret, options] of cases) {
        const error = yield* Effect.flip(auth.provision(Redacted.make(secret), { plan: "free", ...options }))
        expect(error).toBeInstanceOf(InvalidRequest)
        expect(JSON.stringify(error)).not.toContain(secret.slice(9))
        expect(error.message).not.toContain(secret.slice(13))
      }
      const wrong = yield* Effect.flip(auth.provision(Redacted.make("ask_test_0123456789abcdefXYZ"), { plan: "free" }))
      expect(wrong.message).toBe("Invalid API key: key ask_test_0123... is a staging key, but the environment is production")
      const other = yield* Effect.flip(
        auth.provision(Redacted.make("ask_live_0123456789abcdefXYZ"), { plan: "free", environment: "staging" })
      )
      expect(other._tag === "InvalidRequest" && other.details).toEqual([
        { path: "key", message: "ask_live_0123... is a production key, but the environment is staging" }
      ])
      const malformed = yield* Effect.flip(auth.provision(Redacted.make("ask_live_tooShort"), { plan: "free" }))
      expect(malformed._tag === "InvalidRequest" && malformed.details).toEqual([
        { path: "key", message: "must be ask_live_ or ask_test_ followed by at least 16 of [A-Za-z0-9_-]" }
      ])
      expect(malformed.message).toBe(
        "Invalid API key: key must be ask_live_ or ask_test_ followed by at least 16 of [A-Za-z0-9_-]"
      )
      const noLimits = yield* Effect.flip(auth.provision(Redacted.make("ask_live_0123456789abcdefXYZ"), { plan: "enterprise" }))
      expect(noLimits.message).toBe("Invalid key options: limits are required for an enterprise key (per minute and per day)")
      const fixedWithLimits = yield* Effect.flip(
        auth.provision(Redacted.make("ask_live_0123456789abcdefXYZ"), { plan: "pro", limits: { perMinute: 1, perDay: 1 } })
      )
      expect(fixedWithLimits._tag === "InvalidRequest" && fixedWithLimits.details[0]?.path).toBe("limits")
      expect(yield* auth.list).toEqual([])
    }).pipe(Effect.provide(authLayer())))
})

describe("key digests", () => {
  it.prop(
    "the digest of a secret is its SHA-256 in hex",
    { secret: fc.oneof(wellFormed, fc.string({ unit: "binary" }), fc.string({ unit: "grapheme" })) },
    ({ secret }) => {
      const expected = sha256(secret)
      expect(ApiKeySecret.digestOf(secret)).toBe(expected)
    }
  )
})
