/**
 * Speed shortcuts of the adapter, each measured by `pnpm bench --only http`
 * (per-request CPU, `bench/README.md`):
 *
 * - `byInstance`: a response made once per error value, for the errors core
 *   makes once (the refusals of a key, one per reason): the 401 row;
 * - `petJsonText`, `petsJsonText`: the JSON text of pets written directly,
 *   field by field, instead of encoding with their schema (which validates
 *   every field of every pet served) and without an object per pet for
 *   `JSON.stringify` to walk: the listPets and getPet rows;
 * - `petsJsonBytes`: a listing's body encoded once, when it is made: the
 *   listing rows (survivors of the young generation).
 * @internal
 */
import type { Pet } from "@animal-store/core"
import { jsonString } from "../HttpExchange.js"

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

/** Every field of a pet's wire form, so that a field added to `Pet.Pet` is a type error here. */
const petFields: { readonly [K in keyof typeof Pet.Pet.Encoded]: true } = {
  id: true,
  name: true,
  categoryId: true,
  status: true
}
void petFields

/**
 * The JSON text of a pet's wire form (`Pet.Pet`'s encoded side: its fields
 * need no transformation): the id and category id are integers and the
 * status one of three plain words, so only the name is escaped, and only
 * when it has a character JSON escapes (most names have none).
 * @internal
 */
export const petJsonText = (pet: Pet.Pet): string =>
  `{"id":${pet.id},"name":${jsonString(pet.name)},"categoryId":${pet.categoryId},"status":"${pet.status}"}`

/**
 * The JSON text of an array of pets, as `petJsonText` writes each.
 * @internal
 */
export const petsJsonText = (pets: ReadonlyArray<Pet.Pet>): string => {
  let text = "["
  for (let i = 0; i < pets.length; i++) text += i === 0 ? petJsonText(pets[i]!) : "," + petJsonText(pets[i]!)
  return text + "]"
}

const utf8 = new TextEncoder()

/**
 * The UTF-8 bytes of `petsJsonText`: a listing held as text until it is
 * written is a tree of some two hundred strings on V8's young heap, copied by
 * each collection of the young generation it lives through; its bytes are one
 * buffer outside that heap. Writing needs the bytes anyway.
 * @internal
 */
export const petsJsonBytes = (pets: ReadonlyArray<Pet.Pet>): Uint8Array => utf8.encode(petsJsonText(pets))
