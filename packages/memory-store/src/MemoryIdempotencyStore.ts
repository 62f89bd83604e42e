/**
 * `IdempotencyStore` in memory, on the `PetRepository` of its context: a
 * creating call claims the key, inserts the animal and completes the record, uninterruptibly.
 *
 * @since 1.0.0
 */
import type { StoreError } from "@animal-store/core"
import { IdempotencyStore, PetRepository } from "@animal-store/core"
import { Effect, Layer } from "effect"

/**
 * How many expired records a creating call purges at most.
 *
 * @since 1.0.0
 * @category constants
 */
export const purgePerCreate = 4

/** A `Map` key per `(scope, key)`: the scope's length makes it unambiguous. */
const idOf = (scope: string, key: string): string => `${scope.length}:${scope}${key}`

/**
 * @since 1.0.0
 * @category constructors
 */
export const make: Effect.Effect<IdempotencyStore.IdempotencyStoreService, never, PetRepository.PetRepository> = Effect
  .map(PetRepository.PetRepository, (repository) => {
    const records = new Map<string, IdempotencyStore.IdempotencyRecord>()

    const purge = (now: number, limit: number): number => {
      let purged = 0
      for (const [id, record] of records) {
        if (purged >= limit || record.expiresAt > now) break
        records.delete(id)
        purged++
      }
      return purged
    }

    return {
      createPet: ({ decide, key, now, pet, scope }) =>
        Effect.uninterruptible(Effect.suspend((): Effect.Effect<IdempotencyStore.IdempotentCreateOutcome, StoreError.StoreError> => {
          const id = idOf(scope, key)
          const decision = decide(records.get(id))
          if (decision._tag !== "Create") return Effect.succeed(decision)
          purge(now, purgePerCreate)
          const claim: IdempotencyStore.IdempotencyRecord = {
            _tag: "InProgress",
            fingerprint: decision.fingerprint,
            expiresAt: decision.expiresAt
          }
          records.delete(id)
          records.set(id, claim)
          return repository.insert(pet).pipe(
            Effect.onExit((exit) =>
              Effect.sync(() => {
                if (records.get(id) !== claim) return
                if (exit._tag === "Success") {
                  records.set(id, { ...claim, _tag: "Completed", pet: exit.value })
                } else {
                  records.delete(id)
                }
              })
            ),
            Effect.map((created) => ({ _tag: "Created", pet: created }) as const)
          )
        })),
      purge: (now, limit) => Effect.sync(() => purge(now, limit))
    }
  })

/**
 * On the `PetRepository` of the context.
 *
 * @since 1.0.0
 * @category layers
 */
export const layer: Layer.Layer<IdempotencyStore.IdempotencyStore, never, PetRepository.PetRepository> = Layer.effect(
  IdempotencyStore.IdempotencyStore,
  make
)
