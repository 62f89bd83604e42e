/**
 * PostgreSQL connection URLs as the store takes them (`postgres://`, `postgresql://`) and their form
 * for messages. It loads no driver: `storeUrl` imports the store when it opens one.
 *
 * @since 1.0.0
 */
import type { AnimalStore, StoreError } from "@animal-store/core"
import * as StoreUrl from "@animal-store/sql-store/StoreUrl"
import { Duration, Effect, Either, Layer, Redacted } from "effect"
import * as Url from "./internal/url.js"

/**
 * Whether `text` is a PostgreSQL URL with a host (in its authority, or as a
 * `host` parameter for a unix socket).
 *
 * @since 1.0.0
 * @category refinements
 */
export const isValid = (text: string): boolean => {
  if (!/^postgres(ql)?:\/\//.test(text) || !URL.canParse(text)) return false
  const url = new URL(text)
  return url.hostname !== "" || url.searchParams.has("host")
}

/**
 * `url` with its password, and any parameter named like a secret, replaced by
 * `***`. A text that is not a URL is replaced as a whole.
 *
 * @since 1.0.0
 * @category conversions
 */
export const redact: (url: string) => string = Url.redact

/**
 * The location of a PostgreSQL store, with the pool settings a URL does not hold.
 *
 * @since 1.0.0
 * @category models
 */
export interface Location {
  readonly _tag: "Postgres"
  readonly url: Redacted.Redacted<string>
  /** The most connections of the pool (default: the store's, 10). */
  readonly maxConnections?: number | undefined
  /** Statement timeout in milliseconds, 0 for none (default: the store's, 5000). */
  readonly statementTimeout?: number | undefined
}

const form = "postgres://user:password@host:port/database"

const layer = (location: Location): Layer.Layer<AnimalStore.StorePorts, StoreError.StoreError> =>
  Layer.unwrapEffect(
    Effect.map(Effect.promise(() => import("./PostgresStore.js")), (PostgresStore) =>
      PostgresStore.layer({
        url: location.url,
        maxConnections: location.maxConnections,
        statementTimeout: location.statementTimeout === undefined ? undefined : Duration.millis(location.statementTimeout)
      }))
  )

/**
 * The store's URLs (`postgres://` or `postgresql://`) for a `StoreUrl.Registry`;
 * the reason a URL is refused never repeats its password.
 *
 * @since 1.0.0
 * @category store urls
 */
export const storeUrl: StoreUrl.StoreUrl<Location> = StoreUrl.make<Location>({
  tag: "Postgres",
  form,
  accepts: (text) => /^postgres(ql)?:/.test(text),
  parse: (text) =>
    isValid(text)
      ? Either.right({ _tag: "Postgres", url: Redacted.make(text) })
      : Either.left(`expected ${form}, got ${redact(text)}`),
  format: (location) => redact(Redacted.value(location.url)),
  layer
})
