/**
 * The Promise facade of `AnimalStore.open`: a `ManagedRuntime` of
 * `AnimalStore.layer` on the host's store, each call run to a Promise.
 * @internal
 */
import { Cause, Effect, Exit, Layer, ManagedRuntime, Option, Redacted } from "effect"
import * as AccessConfig from "../AccessConfig.js"
import type { AnimalStore, OpenOptions, RequiredPorts, Services } from "../AnimalStore.js"
import * as AnimalStoreError from "../AnimalStoreError.js"
import type { ApiError } from "../ApiError.js"
import * as ApiKeyAuth from "../ApiKeyAuth.js"
import * as GuardedPetOperations from "../GuardedPetOperations.js"
import * as PetInput from "../PetInput.js"
import * as PetOperations from "../PetOperations.js"
import type { StoreError } from "../StoreError.js"

/**
 * Opens the facade on `layer` (`AnimalStore.layer`), provided with the
 * host's store and access settings.
 * @internal
 */
export const open = async (
  layer: Layer.Layer<Services, never, RequiredPorts | AccessConfig.AccessConfig>,
  options: OpenOptions
): Promise<AnimalStore> => {
  const runtime = ManagedRuntime.make(
    layer.pipe(
      Layer.provide(options.store),
      Layer.provide(AccessConfig.layer(options.access)),
      Layer.provideMerge(Layer.setTracerEnabled(false))
    )
  )
  const run = async <A>(effect: Effect.Effect<A, AnimalStoreError.AnimalStoreError, Services>): Promise<A> => {
    const exit = await runtime.runPromiseExit(effect)
    if (Exit.isSuccess(exit)) return exit.value
    const failure = Cause.failureOption(exit.cause)
    if (Option.isSome(failure)) throw failure.value
    if (Cause.isInterruptedOnly(exit.cause)) {
      throw new AnimalStoreError.AnimalStoreError("internal_error", "The call was interrupted (the store is closing)", undefined, undefined)
    }
    // A defect is a bug: logged with its cause, and thrown with it as the error's `cause`.
    await runtime.runPromise(Effect.logError("Animal Store: unexpected failure", exit.cause)).catch(() => undefined)
    throw new AnimalStoreError.AnimalStoreError("internal_error", "Unexpected failure (logged with its cause)", undefined, undefined, {
      cause: Cause.squash(exit.cause)
    })
  }
  await run(Effect.void)
  const trusted = <A>(f: (ops: PetOperations.PetOperationsService) => Effect.Effect<A, ApiError | StoreError>) =>
    run(Effect.flatMap(PetOperations.PetOperations, (ops) => Effect.mapError(f(ops), (e) => AnimalStoreError.fromFailure(e))))
  const guarded = <A>(
    f: (ops: GuardedPetOperations.GuardedPetOperationsService) => Effect.Effect<GuardedPetOperations.Guarded<A>, GuardedPetOperations.GuardedFailure>
  ) =>
    run(Effect.flatMap(GuardedPetOperations.GuardedPetOperations, (ops) =>
      Effect.mapError(f(ops), (failure) => AnimalStoreError.fromFailure(failure.error, failure.meta))))
  const auth = <A>(f: (auth: ApiKeyAuth.ApiKeyAuthService) => Effect.Effect<A, ApiError | StoreError>) =>
    run(Effect.flatMap(ApiKeyAuth.ApiKeyAuth, (service) => Effect.mapError(f(service), (e) => AnimalStoreError.fromFailure(e))))
  return {
    listPets: (query = {}) => trusted((ops) => Effect.flatMap(PetInput.decodeListPetsQuery(query), ops.listPets)),
    createPet: (body, createOptions) =>
      trusted((ops) =>
        Effect.flatMap(PetInput.decodeNewPet(body), (pet) =>
          Effect.map(
            ops.createPet(pet, createOptions?.idempotencyKey === undefined ? undefined : { ...createOptions, body }),
            (outcome) => outcome.pet
          ))),
    getPet: (id) => trusted((ops) => Effect.flatMap(PetInput.decodePetId(id), ops.getPet)),
    guarded: {
      listPets: (request, query = {}) => guarded((ops) => ops.listPets(request, query)),
      createPet: (request, pet, createOptions) => guarded((ops) => ops.createPet(request, pet, createOptions)),
      getPet: (request, id) => guarded((ops) => ops.getPet(request, id))
    },
    keys: {
      issue: (issueOptions) =>
        auth((service) =>
          Effect.map(service.issue(issueOptions), ({ key, secret }) => ({ key, secret: Redacted.value(secret) }))),
      list: () => auth((service) => service.list),
      revoke: (id) => auth((service) => Effect.map(service.revoke(id), Option.getOrUndefined))
    },
    close: () => runtime.dispose()
  }
}

