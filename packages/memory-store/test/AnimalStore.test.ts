import { AnimalStore, AnimalStoreError, PetRepository } from "@animal-store/core"
import { MemoryStore } from "@animal-store/memory-store"
import { Effect, Layer } from "effect"
import { afterEach, describe, expect, it, vi } from "vitest"

const opened: Array<AnimalStore.AnimalStore> = []
const open = async (access?: Parameters<typeof AnimalStore.open>[0]["access"]) => {
  const store = await AnimalStore.open(access === undefined ? { store: MemoryStore.layer } : { store: MemoryStore.layer, access })
  opened.push(store)
  return store
}
afterEach(async () => {
  await Promise.all(opened.splice(0).map((store) => store.close()))
})

const rejection = (promise: Promise<unknown>): Promise<AnimalStoreError.AnimalStoreError> =>
  promise.then(
    () => expect.unreachable("expected a rejection"),
    (error: unknown) => {
      expect(error).toBeInstanceOf(AnimalStoreError.AnimalStoreError)
      return error as AnimalStoreError.AnimalStoreError
    }
  )

describe("AnimalStore Promise facade", () => {
  it("creates, reads and lists through trusted calls", async () => {
    const store = await open()
    const rex = await store.createPet({ name: " Rex ", categoryId: 7 })
    expect(rex).toMatchObject({ id: 1, name: "Rex", categoryId: 7, status: "available" })
    expect(await store.getPet(rex.id)).toEqual(rex)
    await store.createPet({ name: "Tom", categoryId: 7, status: "sold" })
    const page = await store.listPets({ limit: 1 })
    expect(page.pets.map((pet) => pet.name)).toEqual(["Rex"])
    expect(page.nextCursor).toBeDefined()
    const next = await store.listPets({ limit: 1, ...(page.nextCursor ? { cursor: page.nextCursor } : {}) })
    expect(next.pets.map((pet) => pet.name)).toEqual(["Tom"])
    expect(next.nextCursor).toBeUndefined()
  })

  it("rejects with the Error body's code, message and status", async () => {
    const store = await open()
    const invalid = await rejection(store.createPet({ name: "", categoryId: 1 }))
    expect({ code: invalid.code, status: invalid.status }).toEqual({ code: "invalid_request", status: 400 })
    expect(invalid.details).toEqual([{ path: "name", message: "must not be empty" }])
    const missing = await rejection(store.getPet(41))
    expect({ code: missing.code, status: missing.status, message: missing.message })
      .toEqual({ code: "not_found", status: 404, message: "No pet with id 41" })
    const badLimit = await rejection(store.listPets({ limit: 101 }))
    expect(badLimit.status).toBe(400)
  })

  it("guarded calls authenticate, count and carry the metadata", async () => {
    const store = await open({ anonymousPerMinute: 2 })
    const { key, secret } = await store.keys.issue({ plan: "free" })
    expect(secret.startsWith("ask_live_")).toBe(true)
    const request = { credential: secret, clientAddress: "198.51.100.1" }
    const created = await store.guarded.createPet(request, { name: "Rex", categoryId: 1 })
    expect(created.meta.rateLimit?.reported).toMatchObject({ limit: 60, remaining: 59 })
    const read = await store.guarded.getPet(request, created.value.id)
    expect(read.meta.deprecation?.sunset.toISOString()).toBe("2030-12-05T00:00:00.000Z")
    expect(read.meta.rateLimit?.reported.remaining).toBe(58)

    const anonymous = await rejection(store.guarded.listPets({ credential: undefined, clientAddress: "198.51.100.2" }))
    expect({ code: anonymous.code, status: anonymous.status }).toEqual({ code: "unauthorized", status: 401 })
    expect(anonymous.meta?.rateLimit?.reported).toMatchObject({ limit: 2, remaining: 1 })

    expect((await store.keys.list()).map((k) => k.id)).toEqual([key.id])
    expect(JSON.stringify(await store.keys.list())).not.toContain(secret)
    expect((await store.keys.revoke(key.id))?.id).toBe(key.id)
    const revoked = await rejection(store.guarded.listPets(request))
    expect(revoked.status).toBe(401)
    expect(await store.keys.revoke("key_missing")).toBeUndefined()
  })

  it("keeps separate stores apart and releases them on close", async () => {
    const first = await open()
    const second = await open()
    await first.createPet({ name: "Rex", categoryId: 1 })
    expect((await second.listPets()).pets).toEqual([])
    await first.close()
    const closed = await rejection(first.listPets())
    expect({ code: closed.code, status: closed.status }).toEqual({ code: "internal_error", status: 500 })
  })

  it("rejects a defect (a bug) as internal_error with its cause, and logs it with the cause", async () => {
    const bug = new Error("the repository is broken")
    const broken = Layer.succeed(PetRepository.PetRepository, {
      insert: () => Effect.die(bug),
      findById: () => Effect.die(bug),
      list: () => Effect.die(bug)
    })
    const lines: Array<string> = []
    const capture = (...args: Array<unknown>) => void lines.push(args.map(String).join(" "))
    const spies = [vi.spyOn(console, "log").mockImplementation(capture), vi.spyOn(console, "error").mockImplementation(capture)]
    try {
      const store = await AnimalStore.open({ store: Layer.merge(MemoryStore.layer, broken) })
      opened.push(store)
      const error = await rejection(store.getPet(1))
      expect(error).toMatchObject({ code: "internal_error", status: 500 })
      expect(error.cause).toBe(bug)
      expect(lines.join("\n")).toContain("the repository is broken")
      expect(lines.join("\n")).toContain("unexpected failure")
    } finally {
      for (const spy of spies) spy.mockRestore()
    }
  })
})
