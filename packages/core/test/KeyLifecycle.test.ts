import { Effect, Layer } from "effect"
import { ApiKeyStore } from "../src/ApiKeyStore.js"
import { RateLimitStore } from "../src/RateLimitStore.js"
import { testKeyLifecycle } from "../src/testing/KeyLifecycleContract.js"
import * as ModelApiKeyStore from "./internal/ModelApiKeyStore.js"
import * as ModelRateLimitStore from "./internal/ModelRateLimitStore.js"

// The contract on core's reference stores: one pair of stores, seen by every build.
testKeyLifecycle(
  "model stores",
  Effect.map(Effect.all([ModelApiKeyStore.make, ModelRateLimitStore.make]), ([keys, limits]) =>
    Layer.merge(Layer.succeed(ApiKeyStore, keys), Layer.succeed(RateLimitStore, limits)))
)
