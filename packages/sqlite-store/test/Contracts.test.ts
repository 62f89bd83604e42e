import {
  testApiKeyStore,
  testCursorSecret,
  testIdempotencyStore,
  testKeyLifecycle,
  testPetRepository,
  testRateLimitStore
} from "@animal-store/core/test"
import { Effect } from "effect"
import { SqliteStore } from "../src/index.js"
import { freshFileLayer, tempDatabase } from "./internal/files.js"

testPetRepository("SQLite file", freshFileLayer)
testApiKeyStore("SQLite file", freshFileLayer)
// Each build opens the file again: another connection, as another server's.
testKeyLifecycle("SQLite file", Effect.map(tempDatabase, (filename) => SqliteStore.layer({ filename })))
testRateLimitStore("SQLite file", freshFileLayer)
testIdempotencyStore("SQLite file", freshFileLayer)
testCursorSecret("SQLite file", freshFileLayer, Effect.map(tempDatabase, (filename) => SqliteStore.layer({ filename })))

testPetRepository("SQLite :memory:", SqliteStore.layer({ filename: ":memory:" }))
testIdempotencyStore("SQLite :memory:", SqliteStore.layer({ filename: ":memory:" }))
