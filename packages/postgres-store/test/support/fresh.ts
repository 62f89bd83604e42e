import type { AnimalStore } from "@animal-store/core"
/**
 * One throwaway cluster per test file, and a store layer that gives an empty
 * store of its own at each build (a new schema in the cluster's database).
 */
import type * as PgClient from "@effect/sql-pg/PgClient"
import type { Context } from "effect"
import { Effect, Exit, Layer, Scope } from "effect"
import { afterAll, beforeAll } from "vitest"
import { PostgresStore } from "../../src/index.js"
import * as PgCluster from "./PgCluster.js"

/**
 * Starts a cluster before the file's tests and removes it after them; the
 * returned getter answers it inside tests.
 */
export const useCluster = (settings?: Readonly<Record<string, string | number>>): () => PgCluster.PgCluster => {
  let cluster: PgCluster.PgCluster | undefined
  beforeAll(async () => {
    cluster = await PgCluster.start(settings)
  }, 60_000)
  afterAll(async () => {
    await cluster?.destroy()
  }, 60_000)
  return () => {
    if (cluster === undefined) throw new Error("The PostgreSQL cluster of this test file did not start (see beforeAll)")
    return cluster
  }
}

let schemas = 0

/** A schema name no other build of this process uses. */
export const freshSchema = (): string => `t${process.pid}_${++schemas}`

/** Every port in a new schema of the cluster's `postgres` database, at each build. */
export const freshLayer = (
  cluster: () => PgCluster.PgCluster,
  options: Partial<PostgresStore.Options> = {}
): Layer.Layer<AnimalStore.StorePorts, unknown> =>
  Layer.unwrapEffect(
    Effect.sync(() => PostgresStore.layer({ url: cluster().url, schema: freshSchema(), maxConnections: 5, ...options }))
  )

/**
 * One `PgClient` (a pool of its own) on the cluster for the whole file, made
 * on first use and closed after the file's tests; `freshLayerOnClient` builds
 * stores on it as a host would (`layerOnClient`), which spares a pool and its
 * connections at each build.
 */
export const useSharedClient = (cluster: () => PgCluster.PgCluster): () => Promise<Context.Context<PgClient.PgClient>> => {
  let shared: Promise<{ readonly scope: Scope.CloseableScope; readonly context: Context.Context<PgClient.PgClient> }> | undefined
  afterAll(async () => {
    if (shared !== undefined) await Effect.runPromise(Scope.close((await shared).scope, Exit.void))
  })
  return async () => {
    shared ??= Effect.runPromise(Effect.gen(function*() {
      const scope = yield* Scope.make()
      const context = yield* Layer.buildWithScope(
        PostgresStore.layerClient({ url: cluster().url, maxConnections: 10 }),
        scope
      )
      return { scope, context }
    }))
    return (await shared).context
  }
}

/** Every port in a new schema, on the file's shared client, at each build. */
export const freshLayerOnClient = (
  client: () => Promise<Context.Context<PgClient.PgClient>>
): Layer.Layer<AnimalStore.StorePorts, unknown> =>
  Layer.unwrapEffect(
    Effect.map(
      Effect.promise(client),
      (context) => Layer.provide(PostgresStore.layerOnClient({ schema: freshSchema() }), Layer.succeedContext(context))
    )
  )
