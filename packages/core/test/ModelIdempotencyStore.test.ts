import { Layer } from "effect"
import { testIdempotencyStore } from "../src/testing/IdempotencyStoreContract.js"
import * as ModelPetRepository from "../src/testing/internal/ModelPetRepository.js"
import * as ModelIdempotencyStore from "./internal/ModelIdempotencyStore.js"

testIdempotencyStore("model", ModelIdempotencyStore.layer.pipe(Layer.provideMerge(ModelPetRepository.layer())))
