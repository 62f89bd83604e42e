// A host without Effect calls a running Animal Store with the packed client.
import { ClientError, PromiseClient } from "@animal-store/client"

const notices = []
const client = PromiseClient.make({
  baseUrl: process.env.STORE_URL,
  apiKey: process.env.STORE_KEY,
  onDeprecation: (notice) => notices.push(notice.successor)
})
const created = await client.createPet({ name: "Rex", categoryId: 1 })
await client.createPet({ name: "Tom", categoryId: 2, status: "sold" })
const all = []
for await (const pet of client.pets({ limit: 1 })) all.push(pet.name)
const fetched = await client.getPet(created.id)
const missing = await client.getPet(99).catch((error) => ClientError.isCode(error, "not_found"))
await client.close()
console.log(JSON.stringify({ created: created.id, all, fetched: fetched.name, missing, notices }))
