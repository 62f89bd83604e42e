/**
 * Helpers for running `PetOperations` on the reference model in tests.
 *
 * @since 1.0.0
 */
import { expect } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { InvalidRequest } from "../../src/ApiError.js"
import type { Pet } from "../../src/Pet.js"
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
