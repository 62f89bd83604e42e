/**
 * The rate limits of decisions.md: two fixed UTC windows per key (minute and
 * day) from its plan, counted in the store; the per-address limit for requests
 * without a valid key, counted in this process's memory; and the ban of keys
 * that go on after being refused.
 *
 * @since 1.0.0
 */
import { Context, Effect, Layer, Metric, MetricKey } from "effect"
import { AccessConfig } from "./AccessConfig.js"
import type { AccessSettings } from "./AccessConfig.js"
import type { Principal } from "./ApiKey.js"
import type { Plan } from "./Plan.js"
import { RateLimitStore } from "./RateLimitStore.js"
import type { RateLimitState } from "./RateLimitStore.js"
import type { StoreError } from "./StoreError.js"
import { bucketOf } from "./internal/addressBucket.js"
import * as AddressStates from "./internal/addressStates.js"
import { decide } from "./internal/rateLimit.js"
import type { BanPolicy, RateLimitRules } from "./internal/rateLimit.js"
import * as Tracing from "./internal/tracing.js"

/**
 * What is limited: an authenticated key, or a client address without one.
 *
 * @since 1.0.0
 * @category models
 */
export type RateLimitSubject =
  | { readonly _tag: "Key"; readonly principal: Principal }
  | { readonly _tag: "Address"; readonly address: string }

/**
 * One window as reported to the client.
 *
 * @since 1.0.0
 * @category models
 */
export interface RateLimitWindow {
  readonly name: "minute" | "day"
  /** Length of the window in seconds (60 or 86400). */
  readonly seconds: number
  readonly limit: number
  /** Requests left in the window, counting the current one. */
  readonly remaining: number
  /** Unix seconds at which the window resets. */
  readonly reset: number
}

/**
 * The outcome of one request at the limiter.
 *
 * @since 1.0.0
 * @category models
 */
export interface RateLimitDecision {
  /** `Accepted`, `RateLimited` (a window is full) or `Banned`. */
  readonly outcome: "Accepted" | "RateLimited" | "Banned"
  /** The window to report in `X-RateLimit-*`: fewest remaining; on a tie the later reset. */
  readonly reported: RateLimitWindow
  /** Every window in force, for the `RateLimit` and `RateLimit-Policy` fields. */
  readonly windows: ReadonlyArray<RateLimitWindow>
  /** When refused: whole seconds, rounded up, until a request would be accepted. */
  readonly retryAfter: number | undefined
}

/**
 * @since 1.0.0
 * @category models
 */
export interface PlanRateLimiterService {
  /**
   * Checks and counts one request of `subject` at the current time: a key
   * atomically in the store, an address in this limiter's memory (never in the
   * store). The time is read when it is counted, from the `Clock` of the fiber
   * that built the limiter (a `TestClock` in tests).
   */
  readonly check: (subject: RateLimitSubject) => Effect.Effect<RateLimitDecision, StoreError>
}

/**
 * @since 1.0.0
 * @category tags
 */
export class PlanRateLimiter extends Context.Tag("@animal-store/core/PlanRateLimiter")<
  PlanRateLimiter,
  PlanRateLimiterService
>() {}

/**
 * The name of the counter of rate-limit decisions, tagged `outcome`
 * (`accepted`, `rate_limited`, `banned`) and `plan` (the key's, or
 * `anonymous` for a client address).
 *
 * @since 1.0.0
 * @category metrics
 */
export const decisionsMetric = "animal_store.rate_limit.decisions"

const outcomes = { Accepted: "accepted", RateLimited: "rate_limited", Banned: "banned" } as const

/** One counter per outcome and plan, made once: updating a counter made with its tags does no lookup. */
const decisionCounters = Object.fromEntries(
  (["free", "pro", "business", "enterprise", "anonymous"] as const).map((plan) => [
    plan,
    Object.fromEntries(
      Object.entries(outcomes).map(([outcome, label]) => [
        outcome,
        Metric.fromMetricKey(
          MetricKey.counter(decisionsMetric, { description: "Rate-limit decisions by outcome and plan" }).pipe(
            MetricKey.tagged("outcome", label),
            MetricKey.tagged("plan", plan)
          )
        )
      ])
    )
  ])
) as Record<Plan | "anonymous", Record<RateLimitDecision["outcome"], Metric.Metric.Counter<number>>>

/** The rules of every subject under `settings`. */
const rulesFor = (settings: AccessSettings): (subject: RateLimitSubject) => RateLimitRules => {
  const addressRules: RateLimitRules = {
    windows: [{ name: "minute", limit: settings.anonymousPerMinute }],
    ban: undefined
  }
  const keyBan: BanPolicy = { banAfter: settings.banAfter, banSeconds: settings.banSeconds }
  return (subject) =>
    subject._tag === "Address" ? addressRules : {
      windows: [
        { name: "minute", limit: subject.principal.limits.perMinute, sliding: subject.principal.window === "sliding" },
        { name: "day", limit: subject.principal.limits.perDay }
      ],
      ban: keyBan
    }
}

/**
 * Builds the limiter. A key is limited by the minute and day windows of its
 * principal's limits and banned per `AccessConfig`, counted in the
 * `RateLimitStore`. An address is limited by `anonymousPerMinute` a minute,
 * without a day window or ban, counted in memory per address (IPv6 per /64
 * prefix) for at most `anonymousAddresses` addresses, the least recently seen
 * forgotten first.
 *
 * @since 1.0.0
 * @category constructors
 */
export const make: Effect.Effect<PlanRateLimiterService, never, RateLimitStore | AccessConfig> = Effect.gen(
  function*() {
    const store = yield* RateLimitStore
    const settings = yield* AccessConfig
    const rulesOf = rulesFor(settings)
    const addresses = yield* AddressStates.make(settings.anonymousAddresses)
    const clock = yield* Effect.clock
    const fn = yield* Tracing.fn
    return {
      check: fn("PlanRateLimiter.check")((subject: RateLimitSubject) => {
        const rules = rulesOf(subject)
        const counters = decisionCounters[subject._tag === "Key" ? subject.principal.plan : "anonymous"]
        const step = (state: RateLimitState | undefined) => decide(rules, clock.unsafeCurrentTimeMillis())(state)
        const counted = subject._tag === "Key"
          ? store.modify(`key:${subject.principal.keyId}`, step)
          : addresses.modify(bucketOf(subject.address), step)
        return Effect.tap(counted, (decision) => Metric.increment(counters[decision.outcome]))
      })
    }
  }
)

/**
 * @since 1.0.0
 * @category layers
 */
export const layer: Layer.Layer<PlanRateLimiter, never, RateLimitStore | AccessConfig> = Layer.effect(
  PlanRateLimiter,
  make
)
