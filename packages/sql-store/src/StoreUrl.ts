/**
 * Where a store keeps its data, as a URL: each store says which texts it
 * takes (`memory`, `sqlite:<path>`, `postgres://...`), reads them into a
 * location, prints one back (without its secrets) and opens its layer. A
 * `Registry` of the stores a host offers reads any of their URLs.
 *
 * @since 1.0.0
 */
import type { AnimalStore, StoreError } from "@animal-store/core"
import type { Either, Layer } from "effect"
import * as internal from "./internal/storeUrl.js"

/**
 * A store's location, tagged with the store's name.
 *
 * @since 1.0.0
 * @category models
 */
export interface Location {
  readonly _tag: string
}

/**
 * @since 1.0.0
 * @category models
 */
export interface StoreUrl<L extends Location> {
  /** The `_tag` of the store's locations. */
  readonly tag: L["_tag"]
  /** How the store's URLs read, in messages: `sqlite:<path>`. */
  readonly form: string
  /** Whether `text` is one of the store's URLs, valid or not (its scheme). */
  readonly accepts: (text: string) => boolean
  /** The location of a text the store `accepts`, or why it is not valid (without its secrets). */
  readonly parse: (text: string) => Either.Either<L, string>
  /** The text form, as `parse` reads it, with secrets as `***`. */
  readonly format: (location: L) => string
  /** The store's ports at `location`. */
  readonly layer: (location: L) => Layer.Layer<AnimalStore.StorePorts, StoreError.StoreError>
}

/**
 * The stores a host offers, by their URLs.
 *
 * @since 1.0.0
 * @category models
 */
export interface Registry<L extends Location> {
  readonly stores: ReadonlyArray<StoreUrl<L>>
  /** The location of the store that accepts `text`, or why there is none. */
  readonly parse: (text: string) => Either.Either<L, string>
  readonly format: (location: L) => string
  readonly layer: (location: L) => Layer.Layer<AnimalStore.StorePorts, StoreError.StoreError>
}

/**
 * The location type of a `StoreUrl`.
 *
 * @since 1.0.0
 * @category models
 */
export type LocationOf<S> = S extends StoreUrl<infer L> ? L : never

/**
 * @since 1.0.0
 * @category constructors
 */
export const make = <L extends Location>(store: StoreUrl<L>): StoreUrl<L> => store

/**
 * The registry of `stores`: the first that accepts a text parses it.
 *
 * @since 1.0.0
 * @category constructors
 */
export const registry = <const Stores extends ReadonlyArray<StoreUrl<any>>>(
  ...stores: Stores
): Registry<LocationOf<Stores[number]>> => internal.registry(stores)
