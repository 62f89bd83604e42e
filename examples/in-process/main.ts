/**
 * A host program that embeds Animal Store in-process through the Promise
 * facade: its own code uses the trusted calls, and it serves one of its users
 * through a guarded call with that user's API key.
 */
import { AnimalStore, AnimalStoreError } from "@animal-store/core"
import { MemoryStore } from "@animal-store/memory-store"

export const main = async (log: (line: string) => void = console.log): Promise<void> => {
  const store = await AnimalStore.open({ store: MemoryStore.layer })
  try {
    await store.createPet({ name: "Rex", categoryId: 1 })
    await store.createPet({ name: "Tom", categoryId: 2, status: "sold" })
    await store.createPet({ name: "  Nemo  ", categoryId: 3, status: "pending" })

    const available = await store.listPets({ status: "available" })
    log(`available: ${available.pets.map((pet) => pet.name).join(", ")}`)

    const { secret } = await store.keys.issue({ plan: "free" })
    const request = { credential: secret, clientAddress: "192.0.2.10" }
    const page = await store.guarded.listPets(request, { limit: 2 })
    const window = page.meta.rateLimit?.reported
    log(`a client listed ${page.value.pets.length} pets; ${window?.remaining}/${window?.limit} left this ${window?.name}`)

    await store.createPet({ name: "", categoryId: 1 }).catch((error: AnimalStoreError.AnimalStoreError) => {
      log(`rejected: ${error.status} ${error.code}: ${error.message}`)
    })
  } finally {
    await store.close()
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await main()
}
