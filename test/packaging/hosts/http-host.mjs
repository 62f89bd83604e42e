// A host's own node:http server mounting the adapter's listener on the memory store.
import { AccessConfig, AnimalStore, ApiKeyAuth } from "@animal-store/core"
import { NodeListeners } from "@animal-store/http-adapter"
import { MemoryStore } from "@animal-store/memory-store"
import { Effect, Layer, ManagedRuntime, Redacted } from "effect"
import * as Http from "node:http"

const runtime = ManagedRuntime.make(
  AnimalStore.layer.pipe(Layer.provide(AccessConfig.layer()), Layer.provide(MemoryStore.layer))
)
const { listener, secret } = await runtime.runPromise(Effect.gen(function*() {
  const auth = yield* ApiKeyAuth.ApiKeyAuth
  const issued = yield* auth.issue({ plan: "free" })
  return { listener: yield* NodeListeners.makeRequestListener({ accessLog: false }), secret: Redacted.value(issued.secret) }
}))
const server = Http.createServer((request, response) =>
  request.url?.startsWith("/v1/") ? listener(request, response) : response.end("host page")
)
await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve))
const origin = `http://127.0.0.1:${server.address().port}`
const created = await fetch(`${origin}/v1/pets`, {
  method: "POST",
  headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" },
  body: JSON.stringify({ name: "Rex", categoryId: 1 })
})
const listed = await fetch(`${origin}/v1/pets`, { headers: { authorization: `Bearer ${secret}` } })
const own = await fetch(`${origin}/`)
console.log(JSON.stringify({
  created: created.status,
  location: created.headers.get("location"),
  listed: await listed.json(),
  remaining: listed.headers.get("x-ratelimit-remaining"),
  own: await own.text()
}))
server.close()
await runtime.dispose()
