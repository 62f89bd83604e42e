// The same client from CommonJS (Node 20.19+ requires ESM packages).
const { PromiseClient } = require("@animal-store/client")

const client = PromiseClient.make({ baseUrl: process.env.STORE_URL, apiKey: process.env.STORE_KEY })
client.listPets({ limit: 5 }).then(async (page) => {
  await client.close()
  console.log(JSON.stringify(page.pets.map((pet) => pet.name)))
})
