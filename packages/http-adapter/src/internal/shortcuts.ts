/**
 * For speed only (record 0015): a response made once per error value core makes once (the 401),
 * and pets written as JSON text without their schema (the listing and getPet rows).
 *
 * @internal
 */
import type { Pet } from "@animal-store/core"
import { jsonString } from "../HttpExchange.js"

/** `make`, memoized weakly per argument object, for arguments never changed. @internal */
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

// A field added to `Pet.Pet` is a type error here until `petJsonText` writes it.
void ({ id: true, name: true, categoryId: true, status: true } satisfies { readonly [K in keyof typeof Pet.Pet.Encoded]: true })

/** The JSON text of a pet's wire form: only the name needs escaping. @internal */
export const petJsonText = (pet: Pet.Pet): string =>
  `{"id":${pet.id},"name":${jsonString(pet.name)},"categoryId":${pet.categoryId},"status":"${pet.status}"}`

/** The JSON text of an array of pets. @internal */
export const petsJsonText = (pets: ReadonlyArray<Pet.Pet>): string => `[${pets.map(petJsonText).join(",")}]`

const utf8 = new TextEncoder()

/** The UTF-8 bytes of `petsJsonText`: one buffer off the young heap, not a tree of strings. @internal */
export const petsJsonBytes = (pets: ReadonlyArray<Pet.Pet>): Uint8Array => utf8.encode(petsJsonText(pets))
