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
import type { Option } from "effect"
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
 * The `ApiKey` of a row's columns.
 *
 * @since 1.0.0
 * @category constructors
 */
export const apiKey = (fields: {
  readonly id: string
  readonly prefix: string
  readonly digest: string
  readonly plan: ApiKey["plan"]
  readonly perMinute: number
  readonly perDay: number
  readonly environment: ApiKey["environment"]
  readonly createdAt: Date
  readonly revokedAt: Option.Option<Date>
}): ApiKey => {
  const key = Object.create(ApiKey.prototype) as Mutable<ApiKey>
  key.id = fields.id
  key.prefix = fields.prefix
  key.digest = fields.digest
  key.plan = fields.plan
  key.limits = { perMinute: fields.perMinute, perDay: fields.perDay }
  key.environment = fields.environment
  key.createdAt = fields.createdAt
  key.revokedAt = fields.revokedAt
  return key
}
