import { ApiKeyStore, RateLimitStore } from "@animal-store/core"
import { testApiKeyStore, testKeyLifecycle, testRateLimitStore } from "@animal-store/core/test"
import { Effect, Layer } from "effect"
import { MemoryApiKeyStore, MemoryRateLimitStore } from "../src/index.js"

testApiKeyStore("memory", MemoryApiKeyStore.layer)
testRateLimitStore("memory", MemoryRateLimitStore.layer)
// One store's maps, seen by every build.
testKeyLifecycle(
  "memory",
  Effect.map(Effect.all([MemoryApiKeyStore.make, MemoryRateLimitStore.make]), ([keys, limits]) =>
    Layer.merge(Layer.succeed(ApiKeyStore.ApiKeyStore, keys), Layer.succeed(RateLimitStore.RateLimitStore, limits)))
)
