/**
 * API keys as an operator sees and manages them (record 0025): state, plan,
 * limits and usage, and issuing, revoking, rotating and lifting a ban.
 *
 * @since 1.0.0
 */
import type { Duration } from "effect"
import { Clock, Context, Effect, Layer, Option, Schema } from "effect"
import type { AccessConfig } from "./AccessConfig.js"
import type { InvalidRequest } from "./ApiError.js"
import type { ApiKey } from "./ApiKey.js"
import * as ApiKeyAuth from "./ApiKeyAuth.js"
import type { ApiKeyStore } from "./ApiKeyStore.js"
import { RateLimitStore } from "./RateLimitStore.js"
import type { RateLimitState } from "./RateLimitStore.js"
import type { StoreError } from "./StoreError.js"

/**
 * No key has the requested id.
 *
 * @since 1.0.0
 * @category errors
 */
export class ApiKeyNotFound extends Schema.TaggedError<ApiKeyNotFound>()("ApiKeyNotFound", { id: Schema.String }) {
  /** @since 1.0.0 */
  readonly code = "not_found" as const
  /** @since 1.0.0 */
  override get message(): string {
    return `no key with id ${JSON.stringify(this.id)}`
  }
}

/**
 * Accepted requests counted in the current UTC minute and UTC day.
 *
 * @since 1.0.0
 * @category models
 */
export interface KeyUsage {
  readonly minute: number
  readonly day: number
}

/**
 * A key as an operator sees it; `state` is, first that applies, `revoked`, `expired`, `banned`, `active`.
 *
 * @since 1.0.0
 * @category models
 */
export interface KeyStatus {
  readonly key: ApiKey
  readonly state: "active" | "banned" | "expired" | "revoked"
  /** The end of the ban in force, if any. */
  readonly bannedUntil: Option.Option<Date>
  readonly usage: KeyUsage
}

/**
 * A newly issued key, its status and its secret (shown this once).
 *
 * @since 1.0.0
 * @category models
 */
export interface IssuedKey extends ApiKeyAuth.IssuedApiKey {
  readonly status: KeyStatus
}

/**
 * @since 1.0.0
 * @category models
 */
export interface KeyAdministrationService {
  /** Issues a new random key (see `ApiKeyAuth.issue`). */
  readonly issue: (options: ApiKeyAuth.IssueOptions) => Effect.Effect<IssuedKey, InvalidRequest | StoreError>
  /** Every key, oldest first. */
  readonly list: Effect.Effect<ReadonlyArray<KeyStatus>, StoreError>
  readonly show: (id: string) => Effect.Effect<KeyStatus, ApiKeyNotFound | StoreError>
  /** Revokes a key (a revoked key keeps its first `revokedAt`); effective on its next request. */
  readonly revoke: (id: string) => Effect.Effect<KeyStatus, ApiKeyNotFound | StoreError>
  /** Issues a new secret for a key; the previous one keeps working for `grace`. A revoked key is refused. */
  readonly rotate: (
    id: string,
    grace: Duration.Duration
  ) => Effect.Effect<IssuedKey, ApiKeyNotFound | InvalidRequest | StoreError>
  /** Ends a key's ban, if any, and its refusals' numbering; `lifted` says whether a ban ended. */
  readonly unban: (id: string) => Effect.Effect<{ readonly status: KeyStatus; readonly lifted: boolean }, ApiKeyNotFound | StoreError>
}

/**
 * @since 1.0.0
 * @category tags
 */
export class KeyAdministration extends Context.Tag("@animal-store/core/KeyAdministration")<
  KeyAdministration,
  KeyAdministrationService
>() {}

/**
 * The `RateLimitStore` subject a key is counted under by `PlanRateLimiter`.
 *
 * @since 1.0.0
 * @category constructors
 */
export const keySubject = (keyId: string): string => `key:${keyId}`

const minuteMillis = 60_000
const dayMillis = 86_400_000

/**
 * The status of `key` from its rate-limit state at `now` (epoch ms); a window other than the current one counts 0.
 *
 * @since 1.0.0
 * @category constructors
 */
export const statusOf = (key: ApiKey, state: RateLimitState | undefined, now: number): KeyStatus => {
  const minuteStart = Math.floor(now / minuteMillis) * minuteMillis
  const dayStart = Math.floor(now / dayMillis) * dayMillis
  const banned = state !== undefined && now < state.bannedUntil
  return {
    key,
    state: Option.isSome(key.revokedAt)
      ? "revoked"
      : Option.isSome(key.expiresAt) && now >= key.expiresAt.value.getTime()
      ? "expired"
      : banned
      ? "banned"
      : "active",
    bannedUntil: banned ? Option.some(new Date(state.bannedUntil)) : Option.none(),
    usage: {
      minute: state !== undefined && state.minuteStart >= minuteStart ? state.minuteCount : 0,
      day: state !== undefined && state.dayStart >= dayStart ? state.dayCount : 0
    }
  }
}

const lift = (now: number) => (state: RateLimitState | undefined): readonly [boolean, RateLimitState] =>
  state === undefined
    ? [false, {
      minuteStart: 0,
      minuteCount: 0,
      dayStart: 0,
      dayCount: 0,
      refusedCount: 0,
      bannedUntil: 0,
      previousMinuteCount: 0
    }]
    : [now < state.bannedUntil, { ...state, refusedCount: 0, bannedUntil: 0, previousMinuteCount: 0 }]

/**
 * Builds the service on the key and rate-limit stores.
 *
 * @since 1.0.0
 * @category constructors
 */
export const make: Effect.Effect<KeyAdministrationService, never, ApiKeyStore | RateLimitStore | AccessConfig> = Effect
  .gen(function*() {
    const auth = yield* ApiKeyAuth.make
    const limits = yield* RateLimitStore

    const status = (key: ApiKey) =>
      Effect.zipWith(limits.get(keySubject(key.id)), Clock.currentTimeMillis, (state, now) => statusOf(key, state, now))

    const find = (id: string): Effect.Effect<ApiKey, ApiKeyNotFound | StoreError> =>
      Effect.flatMap(auth.list, (keys) => {
        const key = keys.find((key) => key.id === id)
        return key === undefined ? Effect.fail(new ApiKeyNotFound({ id })) : Effect.succeed(key)
      })

    return {
      issue: (options) =>
        Effect.flatMap(auth.issue(options), (issued) => Effect.map(status(issued.key), (status) => ({ ...issued, status }))),
      list: Effect.flatMap(auth.list, (keys) => Effect.forEach(keys, status, { concurrency: 8 })),
      show: (id) => Effect.flatMap(find(id), status),
      revoke: (id) =>
        Effect.flatMap(auth.revoke(id), (revoked): Effect.Effect<KeyStatus, ApiKeyNotFound | StoreError> =>
          Option.isNone(revoked) ? Effect.fail(new ApiKeyNotFound({ id })) : status(revoked.value)),
      rotate: (id, grace) =>
        Effect.flatMap(auth.rotate(id, grace), (rotated): Effect.Effect<IssuedKey, ApiKeyNotFound | StoreError> =>
          Option.isNone(rotated)
            ? Effect.fail(new ApiKeyNotFound({ id }))
            : Effect.map(status(rotated.value.key), (status) => ({ ...rotated.value, status }))),
      unban: (id) =>
        Effect.gen(function*() {
          const key = yield* find(id)
          const subject = keySubject(key.id)
          // Only a state with a ban in force is written: unbanning an unbanned key changes nothing.
          const before = yield* limits.get(subject)
          const now = yield* Clock.currentTimeMillis
          const lifted = before !== undefined && now < before.bannedUntil ? yield* limits.modify(subject, lift(now)) : false
          return { status: yield* status(key), lifted }
        })
    }
  })

/**
 * @since 1.0.0
 * @category layers
 */
export const layer: Layer.Layer<KeyAdministration, never, ApiKeyStore | RateLimitStore | AccessConfig> = Layer.effect(
  KeyAdministration,
  make
)
