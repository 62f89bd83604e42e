/**
 * Bearer API keys: authenticating a credential to a `Principal`, and issuing,
 * listing and revoking keys. Secrets are random (at least 128 bits from a
 * cryptographic generator), shown once when issued, and stored only as a
 * SHA-256 digest.
 *
 * @since 1.0.0
 */
import { Clock, Context, Duration, Effect, Layer, Option, Redacted, Schema } from "effect"
import { AccessConfig } from "./AccessConfig.js"
import type { InvalidRequest, UnauthorizedReason } from "./ApiError.js"
import { Unauthorized } from "./ApiError.js"
import { ApiKey, Environment, MinuteWindow } from "./ApiKey.js"
import type { Principal } from "./ApiKey.js"
import { ApiKeyStore } from "./ApiKeyStore.js"
import { limitsByPlan, Plan, PlanLimits } from "./Plan.js"
import type { StoreError } from "./StoreError.js"
import {
  digestOf,
  displayPrefixOf,
  environmentOf,
  generateKeyId,
  generateSecret
} from "./internal/apiKeySecret.js"
import { decodeInput, invalidRequest } from "./internal/decode.js"
import * as Tracing from "./internal/tracing.js"

/**
 * What to issue: a plan, with limits when it is `enterprise` (per day at
 * least per minute), and the environment (the served one when absent).
 *
 * @since 1.0.0
 * @category models
 */
export interface IssueOptions {
  readonly plan: Plan
  readonly limits?: PlanLimits | undefined
  readonly environment?: Environment | undefined
  /** When the key stops working (later than now); never when absent. */
  readonly expiresAt?: Date | undefined
  /** How its minute is counted; `fixed` when absent. */
  readonly window?: MinuteWindow | undefined
}

/**
 * A newly issued key and its secret, which is not kept anywhere.
 *
 * @since 1.0.0
 * @category models
 */
export interface IssuedApiKey {
  readonly key: ApiKey
  readonly secret: Redacted.Redacted<string>
}

/**
 * @since 1.0.0
 * @category models
 */
export interface ApiKeyAuthService {
  /** The principal of a bearer token (`undefined` when none was sent), or why it is refused. */
  readonly authenticate: (credential: string | undefined) => Effect.Effect<Principal, Unauthorized | StoreError>
  /** Issues a new random key. */
  readonly issue: (options: IssueOptions) => Effect.Effect<IssuedApiKey, InvalidRequest | StoreError>
  /** Stores a key whose secret the host chose (provisioning at start); idempotent. */
  readonly provision: (
    secret: Redacted.Redacted<string>,
    options: IssueOptions
  ) => Effect.Effect<ApiKey, InvalidRequest | StoreError>
  /** Every key, never a secret. */
  readonly list: Effect.Effect<ReadonlyArray<ApiKey>, StoreError>
  /** Revokes a key by id, every secret of it; `None` when there is no such key. Takes effect on the next request. */
  readonly revoke: (id: string) => Effect.Effect<Option.Option<ApiKey>, StoreError>
  /**
   * Issues a new secret for a key that is not revoked; its current secret keeps
   * working for `grace` (none when zero). `None` when there is no such key.
   */
  readonly rotate: (
    id: string,
    grace: Duration.Duration
  ) => Effect.Effect<Option.Option<IssuedApiKey>, InvalidRequest | StoreError>
}

/**
 * @since 1.0.0
 * @category tags
 */
export class ApiKeyAuth extends Context.Tag("@animal-store/core/ApiKeyAuth")<ApiKeyAuth, ApiKeyAuthService>() {}

const decodeIssueOptions = decodeInput(
  Schema.Struct({
    plan: Plan,
    limits: Schema.optional(PlanLimits),
    environment: Schema.optional(Environment),
    expiresAt: Schema.optional(Schema.ValidDateFromSelf),
    window: Schema.optional(MinuteWindow)
  }),
  "key options"
)

const invalid = (what: string, path: string, message: string) => Effect.fail(invalidRequest(what, [{ path, message }]))

interface Options {
  readonly plan: Plan
  readonly limits: PlanLimits
  readonly environment: Environment
  readonly expiresAt: Option.Option<Date>
  readonly window: MinuteWindow
}

/** The plan, its limits and the key's environment, or why the options are refused. */
const resolveOptions = (
  options: IssueOptions,
  served: Environment,
  now: number
): Effect.Effect<Options, InvalidRequest> =>
  Effect.flatMap(
    decodeIssueOptions(options),
    ({ environment, expiresAt, limits, plan, window }): Effect.Effect<Options, InvalidRequest> => {
      const resolved = (limits: PlanLimits): Options => ({
        plan,
        limits,
        environment: environment ?? served,
        expiresAt: Option.fromNullable(expiresAt),
        window: window ?? "fixed"
      })
      return expiresAt !== undefined && expiresAt.getTime() <= now
        ? invalid("key options", "expiresAt", `must be later than now (${new Date(now).toISOString()})`)
        : plan === "enterprise"
        ? limits === undefined
          ? invalid("key options", "limits", "are required for an enterprise key (per minute and per day)")
          : limits.perDay < limits.perMinute
          ? invalid("key options", "limits.perDay", `must be at least limits.perMinute (${limits.perMinute})`)
          : Effect.succeed(resolved(limits))
        : limits !== undefined
        ? invalid("key options", "limits", `are set only for enterprise keys; a ${plan} key has its plan's limits`)
        : Effect.succeed(resolved(limitsByPlan[plan]))
    }
  )

/** The refusals, one per reason: an `Unauthorized` carries nothing of the request. */
const refusals: { readonly [R in UnauthorizedReason]: Effect.Effect<never, Unauthorized> } = {
  missing: Effect.fail(new Unauthorized({ reason: "missing" })),
  malformed: Effect.fail(new Unauthorized({ reason: "malformed" })),
  unknown: Effect.fail(new Unauthorized({ reason: "unknown" })),
  revoked: Effect.fail(new Unauthorized({ reason: "revoked" })),
  wrong_environment: Effect.fail(new Unauthorized({ reason: "wrong_environment" })),
  expired: Effect.fail(new Unauthorized({ reason: "expired" })),
  rotated: Effect.fail(new Unauthorized({ reason: "rotated" }))
}

const unauthorized = (reason: UnauthorizedReason): Effect.Effect<never, Unauthorized> => refusals[reason]

const principalOf = (key: ApiKey): Principal => ({
  keyId: key.id,
  plan: key.plan,
  limits: key.limits,
  environment: key.environment,
  window: key.window
})

/**
 * Builds the service on an `ApiKeyStore`. Keys of another environment than
 * `AccessConfig.environment` are refused as `wrong_environment`.
 *
 * @since 1.0.0
 * @category constructors
 */
export const make: Effect.Effect<ApiKeyAuthService, never, ApiKeyStore | AccessConfig> = Effect.gen(function*() {
  const store = yield* ApiKeyStore
  const { environment: served } = yield* AccessConfig
  const clock = yield* Effect.clock
  const fn = yield* Tracing.fn

  /** The principal of the key found by `digest`, or why it is refused at the current time. */
  const principalOrRefusal = (digest: string) => (found: Option.Option<ApiKey>): Effect.Effect<Principal, Unauthorized> => {
    if (Option.isNone(found)) return unauthorized("unknown")
    const key = found.value
    if (Option.isSome(key.revokedAt)) return unauthorized("revoked")
    if (key.environment !== served) return unauthorized("wrong_environment")
    const now = clock.unsafeCurrentTimeMillis()
    if (Option.isSome(key.expiresAt) && now >= key.expiresAt.value.getTime()) return unauthorized("expired")
    const held = key.digest === digest ||
      Option.exists(key.previousSecret, (previous) => previous.digest === digest && now < previous.until.getTime())
    if (!held) return unauthorized("rotated")
    return Effect.succeed(principalOf(key))
  }

  /** The principal of a well-formed credential's `digest`, or why it is refused. */
  const authenticateDigest = fn("ApiKeyAuth.authenticate")((digest: string) =>
    Effect.flatMap(store.findByDigest(digest), principalOrRefusal(digest))
  )

  const insert = Effect.fnUntraced(
    function*(secret: string, { environment, expiresAt, limits, plan, window }: Options) {
      const now = yield* Clock.currentTimeMillis
      const id = yield* Effect.sync(generateKeyId)
      return yield* store.insert(
        new ApiKey({
          id,
          prefix: displayPrefixOf(secret, environment),
          digest: digestOf(secret),
          plan,
          limits,
          environment,
          createdAt: new Date(now),
          revokedAt: Option.none(),
          expiresAt,
          window,
          previousSecret: Option.none()
        })
      )
    }
  )

  return {
    authenticate: (credential) => {
      if (credential === undefined) return unauthorized("missing")
      if (environmentOf(credential) === undefined) return unauthorized("malformed")
      return authenticateDigest(digestOf(credential))
    },
    issue: Effect.fnUntraced(function*(options: IssueOptions) {
      const resolved = yield* resolveOptions(options, served, clock.unsafeCurrentTimeMillis())
      const secret = yield* Effect.sync(() => generateSecret(resolved.environment))
      const key = yield* insert(secret, resolved)
      return { key, secret: Redacted.make(secret) }
    }),
    provision: (secret, options) => {
      const value = Redacted.value(secret)
      const environment = environmentOf(value)
      const expected = options.environment ?? served
      if (environment === undefined) {
        return invalid("API key", "key", "must be ask_live_ or ask_test_ followed by at least 16 of [A-Za-z0-9_-]")
      }
      if (environment !== expected) {
        return invalid(
          "API key",
          "key",
          `${displayPrefixOf(value, environment)}... is a ${environment} key, but the environment is ${expected}`
        )
      }
      return Effect.flatMap(
        Effect.suspend(() => resolveOptions(options, expected, clock.unsafeCurrentTimeMillis())),
        (resolved) => insert(value, resolved)
      )
    },
    list: store.list,
    revoke: (id) => Effect.flatMap(Clock.currentTimeMillis, (now) => store.revoke(id, new Date(now))),
    rotate: Effect.fnUntraced(function*(id: string, grace: Duration.Duration) {
      const key = (yield* store.list).find((key) => key.id === id)
      if (key === undefined) return Option.none()
      if (Option.isSome(key.revokedAt)) return yield* invalid("key", "id", `${id} is revoked: a revoked key cannot be rotated`)
      const now = yield* Clock.currentTimeMillis
      const secret = yield* Effect.sync(() => generateSecret(key.environment))
      const next = { digest: digestOf(secret), prefix: displayPrefixOf(secret, key.environment) }
      const rotated = yield* store.rotate(id, next, new Date(now + Duration.toMillis(grace)))
      return Option.map(rotated, (key) => ({ key, secret: Redacted.make(secret) }))
    })
  }
})

/**
 * @since 1.0.0
 * @category layers
 */
export const layer: Layer.Layer<ApiKeyAuth, never, ApiKeyStore | AccessConfig> = Layer.effect(ApiKeyAuth, make)
