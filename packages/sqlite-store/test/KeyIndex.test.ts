import { describe, expect, it } from "@effect/vitest"
import * as fc from "effect/FastCheck"
import * as KeyIndex from "../src/internal/keyIndex.js"

interface Entry {
  readonly scope: string
  readonly key: string
  readonly petId: number
  readonly expiresAt: number
}

type Step =
  | { readonly _tag: "Add"; readonly scope: string; readonly key: string; readonly petId: number; readonly ttl: number }
  | { readonly _tag: "Find"; readonly scope: string; readonly key: string }
  | { readonly _tag: "Forget"; readonly advance: number; readonly limit: number }

const scope = fc.constantFrom("key-1", "key-2", "")
const key = fc.constantFrom("a", "b", "c", "retry-1", "k".repeat(40))
const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ _tag: fc.constant("Add" as const), scope, key, petId: fc.integer({ min: 1, max: 40 }), ttl: fc.integer({ min: 0, max: 50 }) }),
  fc.record({ _tag: fc.constant("Find" as const), scope, key }),
  fc.record({ _tag: fc.constant("Forget" as const), advance: fc.integer({ min: 0, max: 30 }), limit: fc.integer({ min: 0, max: 6 }) })
)

/** Hashes under which every key collides with others: the table's probing and the caller's check are what tell them apart. */
const hashes: Record<string, KeyIndex.Hash> = {
  seeded: KeyIndex.seededHash(),
  "two buckets": (s, k) => (s.length + k.length) % 2,
  "one bucket": () => 7
}

describe("the in-memory index of idempotency keys", () => {
  for (const [name, hash] of Object.entries(hashes)) {
    it.prop(
      `answers every entry of a key not yet forgotten, and forgets expired entries in the order they were added (${name} hash)`,
      { steps: fc.array(step, { maxLength: 60 }) },
      ({ steps }) => {
        const index = KeyIndex.make(hash)
        // The model: the entries not yet forgotten, in the order added. Entries
        // are added in expiry order, as the store appends its records.
        let model: Array<Entry> = []
        let now = 0
        let lastExpiry = 0
        for (const s of steps) {
          switch (s._tag) {
            case "Add": {
              lastExpiry = Math.max(lastExpiry, now + s.ttl)
              index.add(s.scope, s.key, s.petId, lastExpiry)
              model.push({ scope: s.scope, key: s.key, petId: s.petId, expiresAt: lastExpiry })
              break
            }
            case "Find": {
              const seen: Array<number> = []
              expect(index.find(s.scope, s.key, (petId) => void seen.push(petId))).toBeUndefined()
              const expected = model.filter((e) => e.scope === s.scope && e.key === s.key).map((e) => e.petId)
              // Every id of the key (as often as it was added), and only ids of entries not yet forgotten.
              for (const petId of new Set(expected)) {
                expect(seen.filter((id) => id === petId).length).toBeGreaterThanOrEqual(expected.filter((id) => id === petId).length)
              }
              for (const petId of seen) expect(model.some((e) => e.petId === petId)).toBe(true)
              // The caller's answer for one of them is the answer.
              const wanted = expected[expected.length - 1]
              if (wanted !== undefined) {
                expect(index.find(s.scope, s.key, (petId) => petId === wanted ? `record ${petId}` : undefined)).toBe(`record ${wanted}`)
              }
              break
            }
            case "Forget": {
              now += s.advance
              let expired = 0
              while (expired < model.length && model[expired]!.expiresAt <= now) expired++
              const forgotten = Math.min(expired, s.limit)
              expect(index.forgetExpired(now, s.limit)).toBe(forgotten)
              model = model.slice(forgotten)
              break
            }
          }
          expect(index.size()).toBe(model.length)
        }
      }
    )
  }

  it("grows past its first table and queue, and rebuilds its table without the forgotten entries, keeping every other", () => {
    const index = KeyIndex.make()
    const count = 5000
    for (let i = 1; i <= count; i++) index.add("scope", `key-${i}`, i, i)
    expect(index.size()).toBe(count)
    for (let i = 1; i <= count; i += 499) {
      expect(index.find("scope", `key-${i}`, (petId) => petId === i ? petId : undefined)).toBe(i)
    }
    expect(index.find("scope", "key-0", (petId) => petId)).toBeUndefined()
    expect(index.forgetExpired(4000, 10_000)).toBe(4000)
    expect(index.size()).toBe(1000)
    expect(index.find("scope", "key-4000", (petId) => petId)).toBeUndefined()
    // The next adds rebuild a smaller table without the forgotten entries.
    for (let i = count + 1; i <= count + 3000; i++) index.add("scope", `key-${i}`, i, i)
    expect(index.size()).toBe(4000)
    expect(index.find("scope", "key-4001", (petId) => petId)).toBe(4001)
    expect(index.find("scope", `key-${count + 3000}`, (petId) => petId)).toBe(count + 3000)
    expect(index.forgetExpired(Infinity, Infinity)).toBe(4000)
    expect(index.size()).toBe(0)
  })

  it("reuses its queue once most of it is forgotten, keeping the order entries expire in", () => {
    const index = KeyIndex.make()
    // Fill the first queue (1,024 entries), forget all but the last 100, then add past its end.
    for (let i = 1; i <= 1024; i++) index.add("scope", `key-${i}`, i, i)
    expect(index.forgetExpired(924, Infinity)).toBe(924)
    for (let i = 1025; i <= 1500; i++) index.add("scope", `key-${i}`, i, i)
    expect(index.size()).toBe(576)
    for (const i of [925, 1024, 1025, 1500]) {
      expect(index.find("scope", `key-${i}`, (petId) => petId === i ? petId : undefined)).toBe(i)
    }
    expect(index.find("scope", "key-924", (petId) => petId)).toBeUndefined()
    expect(index.forgetExpired(1024, Infinity)).toBe(100)
    expect(index.find("scope", "key-1024", (petId) => petId)).toBeUndefined()
    expect(index.find("scope", "key-1025", (petId) => petId)).toBe(1025)
    expect(index.forgetExpired(Infinity, Infinity)).toBe(476)
    expect(index.size()).toBe(0)
  })

  it("tells the same key of two scopes apart, and a scope and key that join into the same text", () => {
    const index = KeyIndex.make()
    index.add("ab", "c", 1, 10)
    index.add("a", "bc", 2, 10)
    const found = (s: string, k: string) => {
      const ids: Array<number> = []
      index.find(s, k, (petId) => void ids.push(petId))
      return ids
    }
    expect(found("ab", "c")).toEqual([1])
    expect(found("a", "bc")).toEqual([2])
    expect(found("abc", "")).toEqual([])
    // The same key in two scopes, looked up right after the other was added.
    index.add("scope-1", "retry-1", 3, 10)
    index.add("scope-2", "retry-1", 4, 10)
    expect(found("scope-1", "retry-1")).toEqual([3])
    index.add("scope-2", "retry-2", 5, 10)
    expect(found("scope-1", "retry-2")).toEqual([])
  })
})
