/**
 * Speed shortcuts of the adapter, each measured by `pnpm bench --only http`
 * (per-request CPU in the README's "How it works"):
 *
 * - `byInstance`: a response made once per error value, for the errors core
 *   makes once (the refusals of a key, one per reason): the 401 row;
 * - `petJson`: a pet's wire form written field by field instead of encoding
 *   with its schema (which validates every field of every pet served): the
 *   listPets and getPet rows.
 * @internal
 */
import type { Pet } from "@animal-store/core"

/**
 * `make`, memoized per argument object (weakly: values that are dropped are
 * forgotten). Only for arguments made once and never changed.
 * @internal
 */
export const byInstance = <K extends object, V>(make: (key: K) => V): (key: K) => V => {
  const made = new WeakMap<K, V>()
  return (key) => {
    let value = made.get(key)
    if (value === undefined) {
      value = make(key)
      made.set(key, value)
    }
    return value
  }
}

/**
 * The wire form of a pet: `Pet.Pet`'s encoded side, field by field. Its
 * fields need no transformation, so this is `Schema.encodeSync(Pet.Pet)`
 * without re-validating; the return type makes a change of `Pet` (a field
 * added, a transformed field) a type error.
 * @internal
 */
export const petJson = (pet: Pet.Pet): typeof Pet.Pet.Encoded => ({
  id: pet.id,
  name: pet.name,
  categoryId: pet.categoryId,
  status: pet.status
})
