import {
  testApiKeyStore,
  testCursorSecret,
  testIdempotencyStore,
  testKeyLifecycle,
  testPetRepository,
  testRateLimitStore
} from "@animal-store/core/test"
import { Effect, Layer } from "effect"
import { PostgresApiKeyStore, PostgresStore } from "../src/index.js"
import { freshLayer, freshLayerOnClient, freshSchema, useCluster, useSharedClient } from "./support/fresh.js"

const cluster = useCluster()
const client = useSharedClient(cluster)

// Each build is an empty store of its own: a new schema. The suites run on one
// pool shared as a host shares its own (`layerOnClient`); PostgresStore.test.ts
// covers the store's own pool (`layer`).
testPetRepository("PostgreSQL, a host's PgClient", freshLayerOnClient(client))
testApiKeyStore("PostgreSQL, a host's PgClient", freshLayerOnClient(client))
testRateLimitStore("PostgreSQL, a host's PgClient", freshLayerOnClient(client))
testIdempotencyStore("PostgreSQL, a host's PgClient", freshLayerOnClient(client))

/** Stores on one new schema, built in turn on the shared client and on pools of their own, as by several servers. */
const sharedSchemaStores = Effect.sync(() => {
  const schema = freshSchema()
  const onClient = Layer.unwrapEffect(
    Effect.map(
      Effect.promise(client),
      (context) => Layer.provide(PostgresStore.layerOnClient({ schema }), Layer.succeedContext(context))
    )
  )
  let builds = 0
  return Layer.unwrapEffect(Effect.sync(() => builds++ % 2 === 0 ? onClient : freshLayer(cluster, { schema })))
})

// The same schema opened by several stores at once, as by several servers:
// the one on the shared client and those with pools of their own agree.
testCursorSecret(
  "PostgreSQL",
  freshLayerOnClient(client),
  sharedSchemaStores
)

// Servers on one schema, on the shared client and on pools of their own: a
// revocation or rotation reaches the others within the key cache's time.
testKeyLifecycle(
  "PostgreSQL",
  sharedSchemaStores,
  { propagation: PostgresApiKeyStore.keyCacheTtl }
)
