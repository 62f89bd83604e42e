import { testApiKeyStore } from "../src/testing/ApiKeyStoreContract.js"
import * as ModelApiKeyStore from "./internal/ModelApiKeyStore.js"
import * as ModelRateLimitStore from "./internal/ModelRateLimitStore.js"
import { testRateLimitStore } from "../src/testing/RateLimitStoreContract.js"

testApiKeyStore("model", ModelApiKeyStore.layer)
testRateLimitStore("model", ModelRateLimitStore.layer)
