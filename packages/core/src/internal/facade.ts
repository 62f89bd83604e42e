/**
 * The Promise facade of `AnimalStore.open`: a `ManagedRuntime` of
 * `AnimalStore.layer` on the host's store, each call run to a Promise.
 * @internal
 */
import { Cause, Effect, Exit, Layer, ManagedRuntime, Option, Redacted } from "effect"
import * as AccessConfig from "../AccessConfig.js"
import type { AnimalStore, OpenOptions, RequiredPorts, Services } from "../AnimalStore.js"
import * as AnimalStoreError from "../AnimalStoreError.js"
import * as Delivery from "../Delivery.js"
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
      Layer.provideMerge(Layer.setTracerEnabled(false)),
      // Calls answer before their writes are durable; `run` gives their results once they are.
      Layer.provideMerge(Layer.locallyScoped(Delivery.held, true))
    )
  )
  /** How the exit of a call settles its Promise. */
  const settle = <A>(exit: Exit.Exit<A, unknown>, resolve: (a: A) => void, reject: (error: unknown) => void) => {
    if (Exit.isSuccess(exit)) return resolve(exit.value)
    const failure = Cause.failureOption(exit.cause)
    if (Option.isSome(failure)) return reject(failure.value)
    if (Cause.isInterruptedOnly(exit.cause)) {
      return reject(
        new AnimalStoreError.AnimalStoreError("internal_error", "The call was interrupted (the store is closing)", undefined, undefined)
      )
    }
    // A defect is a bug: logged with its cause, and thrown with it as the error's `cause`.
    const defect = new AnimalStoreError.AnimalStoreError("internal_error", "Unexpected failure (logged with its cause)", undefined, undefined, {
      cause: Cause.squash(exit.cause)
    })
    runtime.runPromise(Effect.logError("Animal Store: unexpected failure", exit.cause)).then(() => reject(defect), () => reject(defect))
  }
  let delivery: Delivery.DeliveryService = Delivery.immediate
  /** Runs `effect`: its result is given once the store says its writes are durable (record 0074). */
  const run = <A>(effect: Effect.Effect<A, AnimalStoreError.AnimalStoreError, Services>): Promise<A> =>
    new Promise<A>((resolve, reject) => {
      runtime.runCallback(effect, {
        onExit: (exit) =>
          delivery.whenDurable((lost) => lost === undefined ? settle(exit, resolve, reject) : reject(AnimalStoreError.fromFailure(lost)))
      })
    })
  const services = await run(Effect.all({
    delivery: Delivery.Delivery,
    pets: PetOperations.PetOperations,
    guardedPets: GuardedPetOperations.GuardedPetOperations,
    keys: ApiKeyAuth.ApiKeyAuth
  }))
  delivery = services.delivery
  const trusted = <A>(f: (ops: PetOperations.PetOperationsService) => Effect.Effect<A, ApiError | StoreError>) =>
    run(Effect.mapError(f(services.pets), (e) => AnimalStoreError.fromFailure(e)))
  const guarded = <A>(
    f: (ops: GuardedPetOperations.GuardedPetOperationsService) => Effect.Effect<GuardedPetOperations.Guarded<A>, GuardedPetOperations.GuardedFailure>
  ) => run(Effect.mapError(f(services.guardedPets), (failure) => AnimalStoreError.fromFailure(failure.error, failure.meta)))
  const auth = <A>(f: (auth: ApiKeyAuth.ApiKeyAuthService) => Effect.Effect<A, ApiError | StoreError>) =>
    run(Effect.mapError(f(services.keys), (e) => AnimalStoreError.fromFailure(e)))
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

