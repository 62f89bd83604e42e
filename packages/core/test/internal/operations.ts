/**
 * Helpers for running `PetOperations` on the reference model in tests.
 *
 * @since 1.0.0
 */
import { expect } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { InvalidRequest } from "../../src/ApiError.js"
import type { Pet } from "../../src/Pet.js"
import type { StoreError } from "../../src/StoreError.js"
import * as PetInput from "../../src/PetInput.js"
import * as PetOperations from "../../src/PetOperations.js"
import * as ModelPetRepository from "../../src/testing/internal/ModelPetRepository.js"

/**
 * Provides `PetOperations` on a fresh model repository holding `pets`.
 *
 * @since 1.0.0
 */
export const withPets = (pets: ReadonlyArray<Pet> = []) =>
  Effect.provide(PetOperations.layer.pipe(Layer.provide(ModelPetRepository.layer(pets))))

/**
 * Runs `effect` at once with `PetOperations` on a fresh model repository
 * holding `pets`. Property tests use it with `it.prop`: a run costs a fraction
 * of an `it.effect.prop` run, which keeps shrinking a counterexample quick.
 *
 * @since 1.0.0
 */
export const runWithPets = (pets: ReadonlyArray<Pet> = []) =>
<A, E>(effect: Effect.Effect<A, E, PetOperations.PetOperations>): A => Effect.runSync(withPets(pets)(effect))

/**
 * Asserts that `error` is an `InvalidRequest` naming `path` in its details.
 *
 * @since 1.0.0
 */
export const expectInvalid = (error: unknown, path: string): void => {
  expect(error).toBeInstanceOf(InvalidRequest)
  expect((error as InvalidRequest).details.map((detail) => detail.path)).toContain(path)
}

/**
 * The operations as a boundary runs them on what a client sent: decoded with
 * `PetInput`, then the typed operation (`createPet` answering the animal,
 * `createPetOutcome` the whole outcome; a keyed create fingerprints the body
 * as sent).
 *
 * @since 1.0.0
 */
export const fromClientInput = (operations: PetOperations.PetOperationsService) => {
  const createPetOutcome = (body: unknown, options?: Omit<PetOperations.CreatePetOptions, "body">) =>
    Effect.flatMap(
      PetInput.decodeNewPet(body),
      (pet) => operations.createPet(pet, options === undefined ? undefined : { ...options, body })
    )
  return {
    listPets: (query: unknown) => Effect.flatMap(PetInput.decodeListPetsQuery(query), operations.listPets),
    createPetOutcome,
    createPet: ((body: unknown, options?: Omit<PetOperations.CreatePetOptions, "body">) =>
      Effect.map(createPetOutcome(body, options), (outcome) => outcome.pet)) as {
        (body: unknown): Effect.Effect<Pet, InvalidRequest | StoreError>
        (body: unknown, options: Omit<PetOperations.CreatePetOptions, "body"> | undefined): Effect.Effect<
          Pet,
          PetOperations.CreatePetError
        >
      },
    getPet: (id: unknown) => Effect.flatMap(PetInput.decodePetId(id), operations.getPet)
  }
}

/**
 * `PetOperations` of the context, as `fromClientInput` runs them.
 *
 * @since 1.0.0
 */
export const ClientOperations = Effect.map(PetOperations.PetOperations, fromClientInput)
