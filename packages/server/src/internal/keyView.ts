/**
 * A key as the `keys` commands (`--json`) and the admin API show it: the
 * same JSON from both, never a secret but the new key of an issue.
 *
 * @internal
 */
import { ApiKey, KeyAdministration, Plan } from "@animal-store/core"
import { Option, Schema } from "effect"

const Instant = Schema.String.annotations({ format: "date-time", description: "ISO 8601, UTC" })

/** @internal */
export const KeyView = Schema.Struct({
  id: Schema.String,
  prefix: Schema.String.annotations({ description: "The first characters of the secret" }),
  plan: Plan.Plan,
  limits: Plan.PlanLimits,
  environment: ApiKey.Environment,
  state: Schema.Literal("active", "banned", "expired", "revoked"),
  bannedUntil: Schema.NullOr(Instant).annotations({ description: "The end of the ban in force" }),
  revokedAt: Schema.NullOr(Instant),
  expiresAt: Schema.NullOr(Instant).annotations({ description: "When the key stops working; null: never" }),
  window: ApiKey.MinuteWindow.annotations({
    description: "How the minute is counted: the UTC minute (fixed), or with the previous one weighted (sliding)"
  }),
  previousSecret: Schema.NullOr(Schema.Struct({
    prefix: Schema.String.annotations({ description: "The first characters of the secret before the last rotation" }),
    until: Instant.annotations({ description: "The end of its grace period: from then on it is refused" })
  })),
  createdAt: Instant,
  usage: Schema.Struct({
    minute: Schema.Int.annotations({ description: "Requests counted in the current UTC minute" }),
    day: Schema.Int.annotations({ description: "Requests counted in the current UTC day" })
  })
}).annotations({ identifier: "Key" })

/** @internal */
export type KeyView = typeof KeyView.Type

/** @internal */
export const KeyList = Schema.Struct({ keys: Schema.Array(KeyView) }).annotations({ identifier: "KeyList" })

/** @internal */
export const IssuedKeyView = Schema.Struct({
  key: KeyView,
  secret: Schema.String.annotations({ description: "The key itself, shown this once" })
}).annotations({ identifier: "IssuedKey" })

/** @internal */
export const viewOf = ({ bannedUntil, key, state, usage }: KeyAdministration.KeyStatus): KeyView => ({
  id: key.id,
  prefix: key.prefix,
  plan: key.plan,
  limits: key.limits,
  environment: key.environment,
  state,
  bannedUntil: Option.match(bannedUntil, { onNone: () => null, onSome: (at) => at.toISOString() }),
  revokedAt: Option.match(key.revokedAt, { onNone: () => null, onSome: (at) => at.toISOString() }),
  expiresAt: Option.match(key.expiresAt, { onNone: () => null, onSome: (at) => at.toISOString() }),
  window: key.window,
  previousSecret: Option.match(key.previousSecret, {
    onNone: () => null,
    onSome: ({ prefix, until }) => ({ prefix, until: until.toISOString() })
  }),
  createdAt: key.createdAt.toISOString(),
  usage
})

/** The state in words: `active`, `banned until <instant>`, `expired at <instant>` or `revoked at <instant>`. @internal */
export const stateText = (view: KeyView): string =>
  view.state === "revoked"
    ? `revoked at ${view.revokedAt}`
    : view.state === "expired"
    ? `expired at ${view.expiresAt}`
    : view.state === "banned"
    ? `banned until ${view.bannedUntil}`
    : "active"

/** @internal */
export const limitsText = ({ perDay, perMinute }: { readonly perMinute: number; readonly perDay: number }): string =>
  `${perMinute}/min ${perDay}/day`
