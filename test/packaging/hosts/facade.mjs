// Plain Node, ESM: the Promise facade on the store named by argv[2] ("memory" or a SQLite file).
import { AnimalStore } from "@animal-store/core"

const where = process.argv[2] ?? "memory"
const layer = where === "memory"
  ? (await import("@animal-store/memory-store")).MemoryStore.layer
  : (await import("@animal-store/sqlite-store")).SqliteStore.layer({ filename: where })
const store = await AnimalStore.open({ store: layer })
await store.createPet({ name: "  Rex ", categoryId: 1 })
await store.createPet({ name: "Tom", categoryId: 2, status: "sold" })
const { pets } = await store.listPets({ status: "sold" })
const refused = await store.createPet({ name: "", categoryId: 1 }).then(() => "accepted", (error) => `${error.status} ${error.code}`)
await store.close()
console.log(JSON.stringify({ pets, refused }))
