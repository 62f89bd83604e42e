/**
 * A host Node http server that has its own routes and mounts Animal Store's
 * web-standard handler under `/v1`. The host keeps the store's services in a
 * `ManagedRuntime` (to issue API keys) and shares them with the handler
 * through the runtime's memo map, so both use the same memory store.
 */
import { AccessConfig, AnimalStore, ApiKeyAuth } from "@animal-store/core"
import { WebHandler } from "@animal-store/http-adapter"
import { MemoryStore } from "@animal-store/memory-store"
import { Effect, Layer, ManagedRuntime, Redacted } from "effect"
import * as Http from "node:http"
import type { AddressInfo } from "node:net"
import { Readable } from "node:stream"

/** The Node request as a web `Request`, its body streamed. */
const toWebRequest = (request: Http.IncomingMessage): Request => {
  const headers = new Headers()
  for (const [name, value] of Object.entries(request.headers)) {
    for (const item of Array.isArray(value) ? value : value === undefined ? [] : [value]) headers.append(name, item)
  }
  const hasBody = request.method !== "GET" && request.method !== "HEAD"
  return new Request(new URL(request.url ?? "/", `http://${request.headers.host ?? "localhost"}`), {
    method: request.method ?? "GET",
    headers,
    ...(hasBody ? { body: Readable.toWeb(request) as ReadableStream<Uint8Array>, duplex: "half" } : {})
  })
}

/** Writes a web `Response` to the Node response. */
const sendWebResponse = async (response: Response, to: Http.ServerResponse): Promise<void> => {
  to.writeHead(response.status, Object.fromEntries(response.headers))
  if (response.body !== null) {
    for await (const chunk of response.body) to.write(chunk)
  }
  to.end()
}

export interface Host {
  readonly origin: string
  /** Issues an API key of the store (an admin action of the host). */
  readonly issueKey: (plan: "free" | "pro" | "business") => Promise<string>
  readonly close: () => Promise<void>
}

export const startHost = async (port = 3000): Promise<Host> => {
  const services = AnimalStore.layer.pipe(Layer.provide(AccessConfig.layer()), Layer.provide(MemoryStore.layer))
  const runtime = ManagedRuntime.make(services)
  const animalStore = WebHandler.make(services, { memoMap: runtime.memoMap, accessLog: false })

  const server = Http.createServer((request, response) => {
    if (request.url === "/health") {
      response.writeHead(200, { "content-type": "text/plain" }).end("ok")
    } else if (request.url?.startsWith("/v1/")) {
      // The peer address lets Animal Store limit requests without a key per client.
      animalStore.handler(toWebRequest(request), { remoteAddress: request.socket.remoteAddress })
        .then((webResponse) => sendWebResponse(webResponse, response))
        .catch(() => response.destroy())
    } else {
      response.writeHead(404, { "content-type": "text/plain" }).end("not a page of this host")
    }
  })
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve))
  const { port: bound } = server.address() as AddressInfo

  return {
    origin: `http://127.0.0.1:${bound}`,
    issueKey: (plan) =>
      runtime.runPromise(
        Effect.flatMap(ApiKeyAuth.ApiKeyAuth, (auth) => auth.issue({ plan })).pipe(
          Effect.map(({ secret }) => Redacted.value(secret))
        )
      ),
    close: async () => {
      await new Promise<void>((resolve) => server.close(() => resolve()))
      await animalStore.dispose()
      await runtime.dispose()
    }
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const host = await startHost()
  console.log(`host on ${host.origin}; Animal Store under ${host.origin}/v1`)
  console.log(`an API key: ${await host.issueKey("free")}`)
}
