/**
 * The tracing switch (record 0065): core's operations are in spans whenever Effect's tracer is
 * enabled where they are built, under Effect's own tracer too, and in none when it is disabled; the
 * Promise facade runs with it disabled. A store's call reports the switch and its caller's span.
 */
import { describe, expect, it } from "@effect/vitest"
import type { Tracer } from "effect"
import { Effect, Exit, FiberRef, Layer, Option } from "effect"
import * as AnimalStore from "../src/AnimalStore.js"
import * as ListPetsQuery from "../src/ListPetsQuery.js"
import type { PetId } from "../src/Pet.js"
import * as PetOperations from "../src/PetOperations.js"
import { PetRepository } from "../src/PetRepository.js"
import * as ModelPetRepository from "../src/testing/internal/ModelPetRepository.js"
import * as ModelApiKeyStore from "./internal/ModelApiKeyStore.js"
import * as ModelIdempotencyStore from "./internal/ModelIdempotencyStore.js"
import * as ModelRateLimitStore from "./internal/ModelRateLimitStore.js"

interface Seen {
  readonly enabled: boolean
  readonly span: Tracer.AnySpan | undefined
}

/** A repository whose `findById` records the switch and the current span of its caller. */
const watched = (seen: Array<Seen>) =>
  Layer.effect(
    PetRepository,
    Effect.map(ModelPetRepository.make(), (repository) => ({
      ...repository,
      findById: (id: PetId) =>
        Effect.zipRight(
          Effect.flatMap(
            Effect.zip(FiberRef.get(FiberRef.currentTracerEnabled), Effect.option(Effect.currentSpan)),
            ([enabled, span]) => Effect.sync(() => seen.push({ enabled, span: Option.getOrUndefined(span) }))
          ),
          repository.findById(id)
        )
    }))
  )

const getPet = (id: number) =>
  Effect.flatMap(PetOperations.PetOperations, (operations) => Effect.exit(operations.getPet(id as PetId)))

describe("Tracing", () => {
  it.effect("core's operations are in spans while the tracer is enabled, Effect's own tracer too; a refusal ends its span well", () =>
    Effect.gen(function*() {
      const seen: Array<Seen> = []
      const exit = yield* getPet(1).pipe(Effect.provide(PetOperations.layer.pipe(Layer.provide(watched(seen)))))
      expect(Exit.isFailure(exit)).toBe(true)
      expect(seen).toHaveLength(1)
      expect(seen[0]!.enabled).toBe(true)
      const span = seen[0]!.span
      expect(span?._tag === "Span" ? span.name : undefined).toBe("PetOperations.getPet")
      if (span?._tag !== "Span") return
      expect(span.status._tag).toBe("Ended")
      expect(span.status._tag === "Ended" && Exit.isSuccess(span.status.exit)).toBe(true)
      expect(span.attributes.get("error.type")).toBe("PetNotFound")
    }))

  it.effect("core's operations are in no span while the tracer is disabled where they are built", () =>
    Effect.gen(function*() {
      const seen: Array<Seen> = []
      yield* getPet(1).pipe(
        Effect.provide(PetOperations.layer.pipe(Layer.provide(watched(seen)))),
        Effect.withTracerEnabled(false)
      )
      expect(seen).toEqual([{ enabled: false, span: undefined }])
    }))

  it("the Promise facade runs its services and calls with the tracer disabled", async () => {
    const seen: Array<Seen> = []
    const store = await AnimalStore.open({
      store: Layer.mergeAll(
        ModelIdempotencyStore.layer.pipe(Layer.provideMerge(watched(seen))),
        ModelApiKeyStore.layer,
        ModelRateLimitStore.layer,
        ListPetsQuery.layerRandomCursorSecret
      )
    })
    try {
      const pet = await store.createPet({ name: "Rex", categoryId: 1 })
      expect(await store.getPet(pet.id)).toEqual(pet)
      const { secret } = await store.keys.issue({ plan: "pro" })
      await store.guarded.getPet({ credential: secret, clientAddress: "192.0.2.1" }, pet.id)
      expect(seen).toEqual([{ enabled: false, span: undefined }, { enabled: false, span: undefined }])
    } finally {
      await store.close()
    }
  })
})
