/**
 * An `ApiKey` as the SQL stores keep it: one row of plain columns, the
 * instants as Unix epoch milliseconds. Rows hold what a store wrote from a
 * valid key, so reading one does not validate it again.
 *
 * @since 1.0.0
 */
import { ApiKey } from "@animal-store/core"
import { Option } from "effect"

/**
 * The columns of a key's row, in the order of `ApiKeyRow`.
 *
 * @since 1.0.0
 * @category constants
 */
export const columns = "id, prefix, digest, plan, per_minute, per_day, environment, created_at, revoked_at"

/**
 * A key's column values in the order of `columns` (`revoked_at` null while
 * the key is active). Drivers may return integers as decimal strings
 * (PostgreSQL's `bigint`).
 *
 * @since 1.0.0
 * @category models
 */
export type ApiKeyRow = readonly [
  id: string,
  prefix: string,
  digest: string,
  plan: ApiKey.ApiKey["plan"],
  perMinute: number | string,
  perDay: number | string,
  environment: ApiKey.ApiKey["environment"],
  createdAt: number | string,
  revokedAt: number | string | null
]

/**
 * The row of `key`, to insert.
 *
 * @since 1.0.0
 * @category conversions
 */
export const fromApiKey = (key: ApiKey.ApiKey): ApiKeyRow => [
  key.id,
  key.prefix,
  key.digest,
  key.plan,
  key.limits.perMinute,
  key.limits.perDay,
  key.environment,
  key.createdAt.getTime(),
  Option.match(key.revokedAt, { onNone: () => null, onSome: (at) => at.getTime() })
]

/**
 * The `ApiKey` of a row the store wrote.
 *
 * @since 1.0.0
 * @category conversions
 */
export const toApiKey = (row: ApiKeyRow): ApiKey.ApiKey =>
  new ApiKey.ApiKey({
    id: row[0],
    prefix: row[1],
    digest: row[2],
    plan: row[3],
    limits: { perMinute: Number(row[4]), perDay: Number(row[5]) },
    environment: row[6],
    createdAt: new Date(Number(row[7])),
    revokedAt: row[8] === null ? Option.none() : Option.some(new Date(Number(row[8])))
  }, { disableValidation: true })
