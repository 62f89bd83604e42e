/**
 * The client for hosts without Effect: `AnimalStoreClient`'s calls as Promises
 * on the global `fetch`, throwing the same `ClientError` values.
 *
 * @since 1.0.0
 */
import type { Pet } from "@animal-store/core"
import { FetchHttpClient } from "@effect/platform"
import { Cause, Effect, Exit, Layer, ManagedRuntime } from "effect"
import * as AnimalStoreClient from "./AnimalStoreClient.js"
import type { ClientError } from "./ClientError.js"
import type { Budget } from "./RateLimit.js"

/**
 * @since 1.0.0
 * @category models
 */
export interface PromiseClient {
  readonly listPets: (query?: AnimalStoreClient.ListPetsQuery) => Promise<AnimalStoreClient.Page>
  /** Every animal from `query` on, page after page. */
  readonly pets: (query?: AnimalStoreClient.ListPetsQuery) => AsyncIterableIterator<Pet.Pet>
  readonly createPet: (
    pet: AnimalStoreClient.NewPet,
    options?: AnimalStoreClient.CreatePetOptions
  ) => Promise<Pet.Pet>
  readonly getPet: (id: number) => Promise<Pet.Pet>
  readonly budget: () => Promise<Budget>
  /** Releases the client (pending calls are interrupted). */
  readonly close: () => Promise<void>
}

/**
 * A client of the store at `options.baseUrl` with `options.apiKey`.
 *
 * @since 1.0.0
 * @category constructors
 */
export const make = (options: AnimalStoreClient.Options): PromiseClient => {
  const runtime = ManagedRuntime.make(AnimalStoreClient.layer(options).pipe(Layer.provide(FetchHttpClient.layer)))
  const run = async <A>(
    f: (client: AnimalStoreClient.AnimalStoreClientService) => Effect.Effect<A, ClientError>
  ): Promise<A> => {
    const exit = await runtime.runPromiseExit(Effect.flatMap(AnimalStoreClient.AnimalStoreClient, f))
    if (Exit.isFailure(exit)) throw Cause.squash(exit.cause)
    return exit.value
  }
  const listPets = (query?: AnimalStoreClient.ListPetsQuery) => run((client) => client.listPets(query))
  return {
    listPets,
    pets: async function*(query) {
      for (let next: AnimalStoreClient.ListPetsQuery | undefined = query ?? {}; next !== undefined;) {
        const page = await listPets(next)
        yield* page.pets
        next = page.next
      }
    },
    createPet: (pet, createOptions) => run((client) => client.createPet(pet, createOptions)),
    getPet: (id) => run((client) => client.getPet(id)),
    budget: () => run((client) => client.budget),
    close: () => runtime.dispose()
  }
}
