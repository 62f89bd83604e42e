import {
  testApiKeyStore,
  testCursorSecret,
  testIdempotencyStore,
  testPetRepository,
  testRateLimitStore
} from "@animal-store/core/test"
import { Effect } from "effect"
import { SqliteStore } from "../src/index.js"
import { freshFileLayer, tempDatabase } from "./internal/files.js"

testPetRepository("SQLite file", freshFileLayer)
testApiKeyStore("SQLite file", freshFileLayer)
testRateLimitStore("SQLite file", freshFileLayer)
testIdempotencyStore("SQLite file", freshFileLayer)
testCursorSecret("SQLite file", freshFileLayer, Effect.map(tempDatabase, (filename) => SqliteStore.layer({ filename })))

testPetRepository("SQLite :memory:", SqliteStore.layer({ filename: ":memory:" }))
testIdempotencyStore("SQLite :memory:", SqliteStore.layer({ filename: ":memory:" }))
