/**
 * An `ApiKey` as the SQL stores keep it: one row of plain columns, the
 * instants as Unix epoch milliseconds. Rows hold what a store wrote from a
 * valid key, so reading one does not validate it again.
 *
 * @since 1.0.0
 */
import { ApiKey, Plan } from "@animal-store/core"
import { Option } from "effect"
import * as SqlRow from "./SqlRow.js"

/**
 * The columns of a key's row, in the order of `ApiKeyRow`.
 *
 * @since 1.0.0
 * @category constants
 */
export const columns = "id, prefix, digest, plan, per_minute, per_day, environment, created_at, revoked_at, " +
  "expires_at, minute_window, previous_digest, previous_prefix, previous_until"

/**
 * A key's column values in the order of `columns` (`revoked_at` null while
 * the key is active, `expires_at` while it never expires, the `previous_`
 * columns until it is rotated). Drivers may return integers as decimal strings
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
  revokedAt: number | string | null,
  expiresAt: number | string | null,
  window: ApiKey.MinuteWindow,
  previousDigest: string | null,
  previousPrefix: string | null,
  previousUntil: number | string | null
]

const integerOrNull = SqlRow.isNullOr(SqlRow.isInteger)
const stringOrNull = SqlRow.isNullOr(SqlRow.isString)

/**
 * Whether `u` is a key's row (a statement may return more columns after them).
 *
 * @since 1.0.0
 * @category guards
 */
export const isApiKeyRow: SqlRow.Guard<ApiKeyRow> = SqlRow.tuple(
  SqlRow.isString,
  SqlRow.isString,
  SqlRow.isString,
  SqlRow.isLiteral(Plan.Plan.literals),
  SqlRow.isInteger,
  SqlRow.isInteger,
  SqlRow.isLiteral(ApiKey.Environment.literals),
  SqlRow.isInteger,
  integerOrNull,
  integerOrNull,
  SqlRow.isLiteral(ApiKey.MinuteWindow.literals),
  stringOrNull,
  stringOrNull,
  integerOrNull
)

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
  millisOrNull(key.revokedAt),
  millisOrNull(key.expiresAt),
  key.window,
  Option.match(key.previousSecret, { onNone: () => null, onSome: (previous) => previous.digest }),
  Option.match(key.previousSecret, { onNone: () => null, onSome: (previous) => previous.prefix }),
  Option.match(key.previousSecret, { onNone: () => null, onSome: (previous) => previous.until.getTime() })
]

const millisOrNull = (at: Option.Option<Date>): number | null =>
  Option.match(at, { onNone: () => null, onSome: (at) => at.getTime() })

const dateOrNone = (value: number | string | null): Option.Option<Date> =>
  value === null ? Option.none() : Option.some(new Date(Number(value)))

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
    revokedAt: dateOrNone(row[8]),
    expiresAt: dateOrNone(row[9]),
    window: row[10],
    previousSecret: row[11] === null ? Option.none() : Option.some({
      digest: row[11],
      prefix: row[12]!,
      until: new Date(Number(row[13]))
    })
  }, { disableValidation: true })
