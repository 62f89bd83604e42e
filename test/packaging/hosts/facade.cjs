// Plain Node, CommonJS: the same facade through require().
const { AnimalStore } = require("@animal-store/core")
const { MemoryStore } = require("@animal-store/memory-store")

AnimalStore.open({ store: MemoryStore.layer }).then(async (store) => {
  const pet = await store.createPet({ name: "Rex", categoryId: 1 })
  const found = await store.getPet(pet.id)
  await store.close()
  console.log(JSON.stringify({ pet, found }))
})
