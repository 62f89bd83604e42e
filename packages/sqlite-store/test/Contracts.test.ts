import { testApiKeyStore, testIdempotencyStore, testPetRepository, testRateLimitStore } from "@animal-store/core/test"
import { SqliteStore } from "../src/index.js"
import { freshFileLayer } from "./internal/files.js"

testPetRepository("SQLite file", freshFileLayer)
testApiKeyStore("SQLite file", freshFileLayer)
testRateLimitStore("SQLite file", freshFileLayer)
testIdempotencyStore("SQLite file", freshFileLayer)

testPetRepository("SQLite :memory:", SqliteStore.layer({ filename: ":memory:" }))
testIdempotencyStore("SQLite :memory:", SqliteStore.layer({ filename: ":memory:" }))
