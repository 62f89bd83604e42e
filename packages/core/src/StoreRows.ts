/**
 * Instances of core's classes from a store's own rows, for store
 * implementations. A row holds what the store wrote from a valid instance
 * (its column types and constraints keep the shape), so it is not validated
 * again: the instance is made as the class's constructor makes it without
 * validation, minus the constructor's generic per-call work, which was most
 * of the cost of listing a page and is paid on every authenticated request
 * (the listPets and getPet rows of `pnpm bench --only http`). Never for
 * input that did not come from the store.
 *
 * @since 1.0.0
 */
import { Option } from "effect"
import { ApiKey } from "./ApiKey.js"
import type { CategoryId, PetId, PetStatus } from "./Pet.js"
import { Pet } from "./Pet.js"

type Mutable<A> = { -readonly [K in keyof A]: A[K] }

/**
 * The `Pet` of a row's columns.
 *
 * @since 1.0.0
 * @category constructors
 */
export const pet = (id: number, name: string, categoryId: number, status: PetStatus): Pet => {
  const pet = Object.create(Pet.prototype) as Mutable<Pet>
  pet.id = id as PetId
  pet.name = name
  pet.categoryId = categoryId as CategoryId
  pet.status = status
  return pet
}

/**
 * The columns of a key's row, in the order of `ApiKeyRow`.
 *
 * @since 1.0.0
 * @category constants
 */
export const apiKeyColumns = "id, prefix, digest, plan, per_minute, per_day, environment, created_at, revoked_at"

/**
 * A key's row, as a store writes and reads it: its column values in the order
 * of `apiKeyColumns`, the instants as Unix epoch milliseconds (`revoked_at`
 * null while the key is active). A driver may return the integer columns as
 * decimal strings (PostgreSQL's `bigint`).
 *
 * @since 1.0.0
 * @category models
 */
export type ApiKeyRow = readonly [
  id: string,
  prefix: string,
  digest: string,
  plan: ApiKey["plan"],
  perMinute: number | string,
  perDay: number | string,
  environment: ApiKey["environment"],
  createdAt: number | string,
  revokedAt: number | string | null
]

/**
 * The row of `key`, to insert.
 *
 * @since 1.0.0
 * @category conversions
 */
export const apiKeyRow = (key: ApiKey): ApiKeyRow => [
  key.id,
  key.prefix,
  key.digest,
  key.plan,
  key.limits.perMinute,
  key.limits.perDay,
  key.environment,
  key.createdAt.getTime(),
  Option.isSome(key.revokedAt) ? key.revokedAt.value.getTime() : null
]

/**
 * The `ApiKey` of a row the store wrote.
 *
 * @since 1.0.0
 * @category constructors
 */
export const apiKey = (row: ApiKeyRow): ApiKey => {
  const key = Object.create(ApiKey.prototype) as Mutable<ApiKey>
  key.id = row[0]
  key.prefix = row[1]
  key.digest = row[2]
  key.plan = row[3]
  key.limits = { perMinute: Number(row[4]), perDay: Number(row[5]) }
  key.environment = row[6]
  key.createdAt = new Date(Number(row[7]))
  key.revokedAt = row[8] === null ? Option.none() : Option.some(new Date(Number(row[8])))
  return key
}
