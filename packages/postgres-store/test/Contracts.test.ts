import { testApiKeyStore, testIdempotencyStore, testPetRepository, testRateLimitStore } from "@animal-store/core/test"
import { freshLayerOnClient, useCluster, useSharedClient } from "./support/fresh.js"

const cluster = useCluster()
const client = useSharedClient(cluster)

// Each build is an empty store of its own: a new schema. The suites run on one
// pool shared as a host shares its own (`layerOnClient`); PostgresStore.test.ts
// covers the store's own pool (`layer`).
testPetRepository("PostgreSQL, a host's PgClient", freshLayerOnClient(client))
testApiKeyStore("PostgreSQL, a host's PgClient", freshLayerOnClient(client))
testRateLimitStore("PostgreSQL, a host's PgClient", freshLayerOnClient(client))
testIdempotencyStore("PostgreSQL, a host's PgClient", freshLayerOnClient(client))
