/**
 * The contract of a store's `ListPetsQuery.CursorSecret`, as a test suite a store package runs.
 *
 * @since 1.0.0
 */
import { describe, expect, it } from "@effect/vitest"
import type { Layer, Scope } from "effect"
import { Effect, Redacted } from "effect"
import { CursorSecret, makeCursors } from "../ListPetsQuery.js"
import { PetId } from "../Pet.js"

const secretOf = (layer: Layer.Layer<CursorSecret, unknown>): Effect.Effect<string, unknown> =>
  Effect.provide(Effect.map(CursorSecret, Redacted.value), layer)

/**
 * Declares a `describe` block that checks a store's cursor secret: at least
 * 32 bytes, one per store, and with `sameStore` the same for every build of
 * one persistent store.
 *
 * @since 1.0.0
 * @category contracts
 */
export const testCursorSecret = (
  name: string,
  layer: Layer.Layer<CursorSecret, unknown>,
  sameStore?: Effect.Effect<Layer.Layer<CursorSecret, unknown>, unknown, Scope.Scope>
): void => {
  describe(`CursorSecret contract (${name})`, () => {
    it.effect("a store has a secret of at least 32 bytes", () =>
      Effect.gen(function*() {
        const secret = yield* secretOf(layer)
        expect(Buffer.byteLength(secret)).toBeGreaterThanOrEqual(32)
      }))

    it.effect("two stores have different secrets", () =>
      Effect.gen(function*() {
        const [a, b] = yield* Effect.all([secretOf(layer), secretOf(layer)])
        expect(a).not.toBe(b)
      }))

    if (sameStore !== undefined) {
      it.scoped("builds of the same store, at once and one after the other, give the same secret", () =>
        Effect.gen(function*() {
          const store = yield* sameStore
          const [a, b] = yield* Effect.all([secretOf(store), secretOf(store)], { concurrency: "unbounded" })
          const c = yield* secretOf(store)
          expect(Buffer.byteLength(a)).toBeGreaterThanOrEqual(32)
          expect(b).toBe(a)
          expect(c).toBe(a)
          expect(makeCursors(c).open(makeCursors(a).seal("sold", PetId.make(42)), "sold")).toBe(42)
        }))
    }
  })
}
