/**
 * A host application: an animal shelter that takes animals in and reports
 * how many of each status it has, on Animal Store's trusted operations, and
 * that serves the Animal Store HTTP API to its partners. In production it
 * runs on a SQLite file; its test suite swaps in the memory store.
 */
import type { StoreError } from "@animal-store/core"
import { AccessConfig, AnimalStore, PetInput, PetOperations } from "@animal-store/core"
import type { ApiError, Pet } from "@animal-store/core"
import { RequestHandler, WebHandler } from "@animal-store/http-adapter"
import { SqliteStore } from "@animal-store/sqlite-store"
import { Context, Effect, Layer } from "effect"

export interface ShelterService {
  /** Takes an animal in. */
  readonly intake: (name: string, categoryId: number) => Effect.Effect<Pet.Pet, ApiError.InvalidRequest | StoreError.StoreError>
  /** How many animals there are of each status. */
  readonly summary: Effect.Effect<Record<Pet.PetStatus, number>, StoreError.StoreError>
}

export class Shelter extends Context.Tag("example/Shelter")<Shelter, ShelterService>() {}

const countAll = (operations: PetOperations.PetOperationsService, status: Pet.PetStatus) =>
  Effect.iterate({ count: 0, cursor: undefined as string | undefined, done: false }, {
    while: (state) => !state.done,
    body: (state) =>
      operations.listPets({ status, limit: 100, ...(state.cursor === undefined ? {} : { cursor: state.cursor }) }).pipe(
        Effect.map((page) => ({
          count: state.count + page.pets.length,
          cursor: page.nextCursor,
          done: page.nextCursor === undefined
        })),
        Effect.catchTag("InvalidRequest", (error) => Effect.die(error))
      )
  }).pipe(Effect.map((state) => state.count))

export const ShelterLive = Layer.effect(
  Shelter,
  Effect.map(PetOperations.PetOperations, (operations) => ({
    intake: (name, categoryId) =>
      PetInput.decodeNewPet({ name, categoryId }).pipe(
        Effect.flatMap((pet) => operations.createPet(pet)),
        Effect.map((outcome) => outcome.pet)
      ),
    summary: Effect.all({
      available: countAll(operations, "available"),
      pending: countAll(operations, "pending"),
      sold: countAll(operations, "sold")
    })
  }))
)

/** The whole application on the store `ports`: the shelter and every service of Animal Store. */
export const appLayer = (ports: Layer.Layer<AnimalStore.StorePorts, StoreError.StoreError>) =>
  ShelterLive.pipe(
    Layer.provideMerge(AnimalStore.layer),
    Layer.provide(AccessConfig.layer()),
    Layer.provide(ports)
  )

/** Production: a SQLite file. */
export const production = appLayer(SqliteStore.layer({ filename: "./data/shelter.db" }))

/** The HTTP API for partners, as a web handler on the application's store. */
export const partnerApi = (
  services: Layer.Layer<RequestHandler.Requirements, StoreError.StoreError>,
  memoMap: Layer.MemoMap
) => WebHandler.make(services, { memoMap, accessLog: false })
