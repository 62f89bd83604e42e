import { testApiKeyStore } from "./ApiKeyStoreContract.js"
import * as ModelApiKeyStore from "./internal/ModelApiKeyStore.js"
import * as ModelRateLimitStore from "./internal/ModelRateLimitStore.js"
import { testRateLimitStore } from "./RateLimitStoreContract.js"

testApiKeyStore("model", ModelApiKeyStore.layer)
testRateLimitStore("model", ModelRateLimitStore.layer)
