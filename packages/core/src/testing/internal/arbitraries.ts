/**
 * Arbitraries of animals shared by the contract suite and core's property tests.
 *
 * @since 1.0.0
 */
import * as fc from "effect/FastCheck"
import type { NewPet } from "../../Pet.js"
import { CategoryId, Pet, PetId, PetStatus } from "../../Pet.js"

/**
 * @since 1.0.0
 */
export const maxId = Number.MAX_SAFE_INTEGER

/**
 * @since 1.0.0
 */
export const status: fc.Arbitrary<PetStatus> = fc.constantFrom(...PetStatus.literals)

/**
 * A value that is not a `PetStatus`: any string or integer, `null`, near misses.
 *
 * @since 1.0.0
 */
export const unknownStatus: fc.Arbitrary<unknown> = fc.oneof(
  fc.string(),
  fc.integer(),
  fc.constantFrom(null, "Available", "SOLD", " sold")
).filter((s) => !PetStatus.literals.some((literal) => literal === s))

/**
 * Any identifier, small ones (which collide and sit next to each other) more often.
 *
 * @since 1.0.0
 */
export const id: fc.Arbitrary<number> = fc.oneof(
  { weight: 3, arbitrary: fc.integer({ min: 1, max: 300 }) },
  { weight: 1, arbitrary: fc.integer({ min: 1, max: maxId }) }
)

/**
 * A valid stored name: trimmed, 1 to `maxLength` code points from the whole of Unicode.
 *
 * @since 1.0.0
 */
export const name = (maxLength = 20): fc.Arbitrary<string> =>
  fc.string({ unit: "binary", minLength: 1, maxLength }).map((s) => s.trim()).filter((s) => s.length > 0)

/**
 * A decoded `NewPet`, as a repository receives it.
 *
 * @since 1.0.0
 */
export const newPet: fc.Arbitrary<NewPet> = fc.record({
  name: name(),
  categoryId: id.map((n) => CategoryId.make(n)),
  status
})

/**
 * Stored animals with distinct ids and any statuses (names follow ids, so counterexamples shrink fast).
 *
 * @since 1.0.0
 */
export const pets = (maxLength: number): fc.Arbitrary<ReadonlyArray<Pet>> =>
  fc.uniqueArray(fc.tuple(id, status), { selector: ([petId]) => petId, maxLength, size: "max" }).map((entries) =>
    entries.map(([petId, status]) =>
      new Pet({ id: PetId.make(petId), name: `pet ${petId}`, categoryId: CategoryId.make(1), status })
    )
  )
