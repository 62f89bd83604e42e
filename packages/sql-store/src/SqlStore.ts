/**
 * The store services of a SQL store: its four ports (given by the store) and
 * the cursor secret kept in its database, on the store's `SqlClient`, after
 * its migrations when it gives them.
 *
 * @since 1.0.0
 */
import type { AnimalStore, ApiKeyStore, IdempotencyStore, PetRepository, RateLimitStore, StoreError } from "@animal-store/core"
import type * as SqlClient from "@effect/sql/SqlClient"
import type { Effect } from "effect"
import { Layer } from "effect"
import type * as SqlStoreError from "./SqlStoreError.js"
import * as PortSpans from "./internal/portSpans.js"
import * as SqlStoreSecrets from "./SqlStoreSecrets.js"

/**
 * The ports a SQL store implements.
 *
 * @since 1.0.0
 * @category models
 */
export type Ports =
  | PetRepository.PetRepository
  | ApiKeyStore.ApiKeyStore
  | RateLimitStore.RateLimitStore
  | IdempotencyStore.IdempotencyStore

/**
 * How many expired idempotency records a creating call purges at most.
 *
 * @since 1.0.0
 * @category constants
 */
export const purgePerCreate = 4

/**
 * @since 1.0.0
 * @category models
 */
export interface Options<E, R> {
  readonly ports: Layer.Layer<Ports, E, R>
  /** The store's name in its ports' spans (`<name>.<port>.<method>`), made while tracing is enabled. */
  readonly name: string
  readonly classifier: SqlStoreError.Classifier
  /** Run when the layer is built, before the ports are (the store's `SqlStoreMigrations.migrate`). */
  readonly migrate?: Effect.Effect<unknown, StoreError.StoreError, R | SqlClient.SqlClient> | undefined
  /** The table of the store's secrets (`SqlStoreSecrets.table` unless given). */
  readonly secretsTable?: string | undefined
}

/**
 * The store services: `ports` (each call a span while tracing is enabled)
 * and the cursor secret of the database.
 *
 * @since 1.0.0
 * @category layers
 */
export const layer = <E, R>(
  options: Options<E, R>
): Layer.Layer<AnimalStore.StorePorts, E | StoreError.StoreError, R | SqlClient.SqlClient> => {
  const services = Layer.merge(
    PortSpans.traced(options.name)(options.ports),
    SqlStoreSecrets.layerCursorSecret({ classifier: options.classifier, table: options.secretsTable })
  )
  return options.migrate === undefined ? services : Layer.provide(services, Layer.effectDiscard(options.migrate))
}
