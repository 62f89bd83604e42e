/**
 * Core's `Pet` and `ApiKey` from the store's rows, read as arrays of column
 * values. A row holds what the store wrote from a valid instance (STRICT
 * types and CHECK constraints keep its shape), so it is not validated again.
 *
 * @internal
 */
import { ApiKey, Pet } from "@animal-store/core"
import { Option } from "effect"

/** A pet's columns, in the order of its rows. */
export const petColumns = "id, name, category_id, status"

/** A row of `petColumns`. */
export type PetRow = readonly [id: number, name: string, categoryId: number, status: Pet.PetStatus]

/** The `Pet` of a row of `petColumns`. */
export const toPet = (row: PetRow): Pet.Pet =>
  new Pet.Pet({ id: row[0] as Pet.PetId, name: row[1], categoryId: row[2] as Pet.CategoryId, status: row[3] }, true)

/** A key's columns, in the order of `ApiKeyRow`; the instants in Unix epoch milliseconds. */
export const apiKeyColumns = "id, prefix, digest, plan, per_minute, per_day, environment, created_at, revoked_at"

/** A row of `apiKeyColumns` (`revoked_at` null while the key is active). */
export type ApiKeyRow = readonly [
  id: string,
  prefix: string,
  digest: string,
  plan: ApiKey.ApiKey["plan"],
  perMinute: number,
  perDay: number,
  environment: ApiKey.ApiKey["environment"],
  createdAt: number,
  revokedAt: number | null
]

/** The row of `key`, to insert. */
export const apiKeyRow = (key: ApiKey.ApiKey): ApiKeyRow => [
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

/** The `ApiKey` of a row of `apiKeyColumns`. */
export const toApiKey = (row: ApiKeyRow): ApiKey.ApiKey =>
  new ApiKey.ApiKey({
    id: row[0],
    prefix: row[1],
    digest: row[2],
    plan: row[3],
    limits: { perMinute: row[4], perDay: row[5] },
    environment: row[6],
    createdAt: new Date(row[7]),
    revokedAt: row[8] === null ? Option.none() : Option.some(new Date(row[8]))
  }, true)
