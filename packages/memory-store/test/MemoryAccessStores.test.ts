import { testApiKeyStore, testRateLimitStore } from "@animal-store/core/test"
import { MemoryApiKeyStore, MemoryRateLimitStore } from "../src/index.js"

testApiKeyStore("memory", MemoryApiKeyStore.layer)
testRateLimitStore("memory", MemoryRateLimitStore.layer)
