import { Either } from "effect"
import type * as StoreUrl from "../StoreUrl.js"

const oneOf = (forms: ReadonlyArray<string>): string =>
  forms.length < 2 ? forms.join("") : `${forms.slice(0, -1).join(", ")} or ${forms.at(-1)}`

/** @internal */
export const registry = <Location extends StoreUrl.Location>(
  stores: ReadonlyArray<StoreUrl.StoreUrl<Location>>
): StoreUrl.Registry<Location> => {
  const byTag = (location: Location): StoreUrl.StoreUrl<Location> => {
    const store = stores.find((store) => store.tag === location._tag)
    if (store === undefined) throw new Error(`No store takes locations of "${location._tag}"`)
    return store
  }
  return {
    stores,
    parse: (text) => {
      const store = stores.find((store) => store.accepts(text))
      return store === undefined
        ? Either.left(`expected ${oneOf(stores.map((store) => store.form))}, got "${text}"`)
        : store.parse(text)
    },
    format: (location) => byTag(location).format(location),
    layer: (location) => byTag(location).layer(location)
  }
}
