/**
 * The reference behaviour of an `IdempotencyStore`: a map of records on a
 * `Ref`, on the `PetRepository` of the context. A creating call claims the
 * key (`InProgress`), inserts the animal, then completes the record (or
 * removes the claim when the insert fails), uninterruptibly. Purging sorts
 * every record (it is a model, not a store).
 *
 * @since 1.0.0
 */
import { Effect, Layer, Ref } from "effect"
import type { IdempotencyDecision, IdempotencyRecord, IdempotencyStoreService, IdempotentCreateOutcome } from "../../src/IdempotencyStore.js"
import { IdempotencyStore } from "../../src/IdempotencyStore.js"
import { PetRepository } from "../../src/PetRepository.js"
import type { StoreError } from "../../src/StoreError.js"

const idOf = (scope: string, key: string) => JSON.stringify([scope, key])

const purgeFrom = (records: Map<string, IdempotencyRecord>, now: number, limit: number): number => {
  const expired = [...records.entries()]
    .filter(([, record]) => record.expiresAt <= now)
    .sort(([, a], [, b]) => a.expiresAt - b.expiresAt)
    .slice(0, Math.max(0, limit))
  for (const [id] of expired) records.delete(id)
  return expired.length
}

/**
 * @since 1.0.0
 */
export const make: Effect.Effect<IdempotencyStoreService, never, PetRepository> = Effect.gen(function*() {
  const repository = yield* PetRepository
  const ref = yield* Ref.make(new Map<string, IdempotencyRecord>())
  return {
    createPet: ({ decide, key, now, pet, scope }) =>
      Effect.uninterruptible(
        Effect.flatMap(
          Ref.modify(ref, (records): readonly [IdempotencyDecision, Map<string, IdempotencyRecord>] => {
            const id = idOf(scope, key)
            const decision = decide(records.get(id))
            if (decision._tag !== "Create") return [decision, records] as const
            const next = new Map(records)
            purgeFrom(next, now, 1)
            next.set(id, { _tag: "InProgress", fingerprint: decision.fingerprint, expiresAt: decision.expiresAt })
            return [decision, next] as const
          }),
          (decision): Effect.Effect<IdempotentCreateOutcome, StoreError> => {
            if (decision._tag !== "Create") return Effect.succeed(decision)
            const id = idOf(scope, key)
            return repository.insert(pet).pipe(
              Effect.onExit((exit) =>
                Ref.update(ref, (records) => {
                  const next = new Map(records)
                  if (exit._tag === "Success") {
                    next.set(id, { _tag: "Completed", fingerprint: decision.fingerprint, expiresAt: decision.expiresAt, pet: exit.value })
                  } else {
                    next.delete(id)
                  }
                  return next
                })
              ),
              Effect.map((created) => ({ _tag: "Created", pet: created }) as const)
            )
          }
        )
      ),
    purge: (now, limit) =>
      Ref.modify(ref, (records) => {
        const next = new Map(records)
        return [purgeFrom(next, now, limit), next] as const
      })
  }
})

/**
 * On the `PetRepository` of the context.
 *
 * @since 1.0.0
 */
export const layer: Layer.Layer<IdempotencyStore, never, PetRepository> = Layer.effect(IdempotencyStore, make)
