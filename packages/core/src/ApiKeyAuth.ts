/**
 * Bearer API keys: authenticating a credential to a `Principal`, and issuing,
 * listing and revoking keys. Secrets are random (at least 128 bits from a
 * cryptographic generator), shown once when issued, and stored only as a
 * SHA-256 digest.
 *
 * @since 1.0.0
 */
import type { Effect, Option, Redacted } from "effect"
import { Context } from "effect"
import type { InvalidRequest, Unauthorized } from "./ApiError.js"
import type { ApiKey, Environment, Principal } from "./ApiKey.js"
import type { Plan, PlanLimits } from "./Plan.js"
import type { StoreError } from "./StoreError.js"

/**
 * What to issue: a plan, with limits when it is `enterprise`, and the
 * environment (the served one when absent).
 *
 * @since 1.0.0
 * @category models
 */
export interface IssueOptions {
  readonly plan: Plan
  readonly limits?: PlanLimits | undefined
  readonly environment?: Environment | undefined
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
  /** Revokes a key by id; `None` when there is no such key. Takes effect on the next request. */
  readonly revoke: (id: string) => Effect.Effect<Option.Option<ApiKey>, StoreError>
}

/**
 * @since 1.0.0
 * @category tags
 */
export class ApiKeyAuth extends Context.Tag("@animal-store/core/ApiKeyAuth")<ApiKeyAuth, ApiKeyAuthService>() {}
