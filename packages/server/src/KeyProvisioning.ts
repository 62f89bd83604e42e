/**
 * Keys provisioned at start from `ANIMAL_STORE_API_KEYS` (development and
 * tests): comma-separated `<key>:<plan>` or `<key>:enterprise:<perMinute>:<perDay>`;
 * refusals never show the key.
 *
 * @since 1.0.0
 */
import type { StoreError } from "@animal-store/core"
import { ApiKeyAuth, Plan } from "@animal-store/core"
import { Data, Effect, Either, Redacted, Schema } from "effect"

/**
 * The environment variable the keys are read from.
 *
 * @since 1.0.0
 * @category constants
 */
export const variable = "ANIMAL_STORE_API_KEYS"

/**
 * One key to provision.
 *
 * @since 1.0.0
 * @category models
 */
export interface Entry {
  readonly secret: Redacted.Redacted<string>
  readonly options: ApiKeyAuth.IssueOptions
}

/**
 * Why provisioning stopped the start. The message never contains a key.
 *
 * @since 1.0.0
 * @category errors
 */
export class ProvisioningError extends Data.TaggedError("ProvisioningError")<{ readonly message: string }> {}

/**
 * The plans, as messages name them: `free, pro, business or enterprise`.
 *
 * @since 1.0.0
 * @category constants
 */
export const planNames: string = `${Plan.Plan.literals.slice(0, -1).join(", ")} or ${Plan.Plan.literals.at(-1)}`

/**
 * Whether a string names a plan (`free`, `pro`, `business`, `enterprise`).
 *
 * @since 1.0.0
 * @category refinements
 */
export const isPlan: (value: unknown) => value is Plan.Plan = Schema.is(Plan.Plan)

const positiveInteger = /^[1-9][0-9]{0,15}$/

const parseEntry = (text: string, position: number): Either.Either<Entry, ProvisioningError> => {
  const fail = (reason: string) =>
    Either.left(new ProvisioningError({ message: `${variable} entry ${position}: ${reason}` }))
  const [secret, plan, perMinute, perDay, ...rest] = text.trim().split(":")
  if (secret === undefined || secret === "" || plan === undefined || rest.length > 0) {
    return fail("expected <key>:<plan> or <key>:enterprise:<perMinute>:<perDay>")
  }
  if (!isPlan(plan)) return fail(`unknown plan "${plan}" (${planNames})`)
  if (plan === "enterprise") {
    if (perMinute === undefined || perDay === undefined || !positiveInteger.test(perMinute) || !positiveInteger.test(perDay)) {
      return fail("an enterprise key needs positive integer limits: <key>:enterprise:<perMinute>:<perDay>")
    }
    if (Number(perDay) < Number(perMinute)) return fail(`an enterprise key's perDay must be at least its perMinute (${perMinute})`)
    return Either.right({
      secret: Redacted.make(secret),
      options: { plan, limits: { perMinute: Number(perMinute), perDay: Number(perDay) } }
    })
  }
  if (perMinute !== undefined) return fail(`only enterprise keys take limits; a ${plan} key has its plan's limits`)
  return Either.right({ secret: Redacted.make(secret), options: { plan } })
}

/**
 * Reads the value of `ANIMAL_STORE_API_KEYS` (empty or absent: no keys).
 *
 * @since 1.0.0
 * @category constructors
 */
export const parse = (value: string | undefined): Either.Either<ReadonlyArray<Entry>, ProvisioningError> => {
  if (value === undefined || value.trim() === "") return Either.right([])
  return Either.all(value.split(",").map((text, i) => parseEntry(text, i + 1)))
}

/**
 * Stores the keys in the served environment (idempotent).
 *
 * @since 1.0.0
 * @category constructors
 */
export const provision = (
  entries: ReadonlyArray<Entry>
): Effect.Effect<void, ProvisioningError | StoreError.StoreError, ApiKeyAuth.ApiKeyAuth> =>
  Effect.flatMap(ApiKeyAuth.ApiKeyAuth, (auth) =>
    Effect.forEach(entries, (entry, i) =>
      auth.provision(entry.secret, entry.options).pipe(
        Effect.catchTag("InvalidRequest", (invalid) =>
          Effect.fail(new ProvisioningError({ message: `${variable} entry ${i + 1}: ${invalid.message}` })))
      ), { discard: true }))
