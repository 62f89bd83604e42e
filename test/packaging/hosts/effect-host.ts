// A TypeScript host on its own effect: composes the layers and runs the operations.
import { AccessConfig, AnimalStore, PetInput, PetOperations } from "@animal-store/core"
import type { Pet } from "@animal-store/core"
import { RequestHandler } from "@animal-store/http-adapter"
import { MemoryStore } from "@animal-store/memory-store"
import { StandaloneServer } from "@animal-store/server"
import { SqliteStore } from "@animal-store/sqlite-store"
import { Effect, Layer } from "effect"
import type { AnimalStoreClient } from "@animal-store/client"

/** The client's declarations type-check in a strict host too. */
export type ClientService = AnimalStoreClient.AnimalStoreClientService

const services = (ports: Layer.Layer<AnimalStore.StorePorts, unknown>) =>
  AnimalStore.layer.pipe(Layer.provide(AccessConfig.layer({ banAfter: 3 })), Layer.provide(ports))

const program: Effect.Effect<ReadonlyArray<Pet.Pet>, unknown, AnimalStore.Services> = Effect.gen(function*() {
  const operations = yield* PetOperations.PetOperations
  yield* operations.createPet(yield* PetInput.decodeNewPet({ name: "Rex", categoryId: 1 }))
  const handle = yield* RequestHandler.make({ accessLog: false })
  const response = yield* handle({
    method: "GET",
    url: "/v1/openapi.json",
    headers: {},
    remoteAddress: "127.0.0.1",
    body: () => Effect.succeed(new Uint8Array())
  })
  if (response.status !== 200) return yield* Effect.die(`openapi.json answered ${response.status}`)
  const page = yield* operations.listPets({ limit: 10 })
  return page.pets
})

const options: StandaloneServer.Options = { host: "127.0.0.1", port: 0, store: { _tag: "Memory" } }
export const layers = [services(MemoryStore.layer), services(SqliteStore.layer({ filename: ":memory:" }))] as const
export const handlerOptions: RequestHandler.Options = { accessLog: false }
export { options }

Effect.runPromise(Effect.provide(program, layers[0])).then((pets) => console.log(JSON.stringify(pets)))
