/**
 * Traces of the bundled server exported over OTLP/HTTP (JSON) to a receiver
 * in this test: a request with a W3C `traceparent` gives one trace with that
 * trace id, its server span a child of the incoming span, and core's checks
 * and operation spans beneath it in one chain. A receiver that stops is
 * logged once when exports start failing and once when they work again, its
 * dropped spans are counted on `/metrics`, and it does not hold up shutdown.
 * Access lines carry the trace id.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Fs from "node:fs"
import * as Http from "node:http"
import * as Net from "node:net"
import * as Os from "node:os"
import * as Path from "node:path"
import type { Serving } from "./support/CliProcess.js"
import { startServe } from "./support/CliProcess.js"

interface Span {
  readonly traceId: string
  readonly spanId: string
  readonly parentSpanId?: string
  readonly name: string
  readonly kind: number
  readonly attributes: ReadonlyArray<{ readonly key: string; readonly value: Record<string, unknown> }>
  readonly status?: { readonly code?: number }
}

/**
 * A receiver of OTLP/HTTP JSON traces: the spans and the resources' service names received so far;
 * it can be stopped (connections refused) and started again on the same port.
 */
const receiver = async () => {
  const spans: Array<Span> = []
  const services = new Set<string>()
  const make = () => Http.createServer((request, response) => {
    let body = ""
    request.on("data", (chunk) => (body += chunk))
    request.on("end", () => {
      if (request.method === "POST" && request.url === "/v1/traces") {
        const decoded = JSON.parse(body) as {
          resourceSpans: ReadonlyArray<{
            resource: { attributes: Span["attributes"] }
            scopeSpans: ReadonlyArray<{ spans: ReadonlyArray<Span> }>
          }>
        }
        for (const resource of decoded.resourceSpans) {
          const service = resource.resource.attributes.find((attribute) => attribute.key === "service.name")
          if (service !== undefined) services.add(String(service.value["stringValue"]))
          for (const scope of resource.scopeSpans) spans.push(...scope.spans)
        }
      }
      response.writeHead(200, { "content-type": "application/json" }).end("{}")
    })
  })
  let server = make()
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const port = (server.address() as Net.AddressInfo).port
  return {
    spans,
    services,
    server: { close: () => server.close() },
    origin: `http://127.0.0.1:${port}`,
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      }),
    restart: async () => {
      server = make()
      await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve))
    }
  }
}

/** A collector that takes connections and never answers. */
const blackhole = async () => {
  const sockets = new Set<Net.Socket>()
  const server = Net.createServer((socket) => {
    sockets.add(socket)
    socket.on("close", () => sockets.delete(socket))
    socket.on("error", () => {})
    socket.resume()
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  return {
    origin: `http://127.0.0.1:${(server.address() as Net.AddressInfo).port}`,
    close: () => {
      for (const socket of sockets) socket.destroy()
      server.close()
    }
  }
}

/** The address of a port nothing listens on: its connections are refused. */
const refusing = async () => {
  const server = Net.createServer()
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const port = (server.address() as Net.AddressInfo).port
  await new Promise<void>((resolve) => server.close(() => resolve()))
  return `http://127.0.0.1:${port}`
}

/** Waits until `check` gives a value, up to `seconds`. */
const until = async <A>(what: string, check: () => A | undefined | Promise<A | undefined>, seconds = 30): Promise<A> => {
  const deadline = Date.now() + seconds * 1000
  for (;;) {
    const value = await check()
    if (value !== undefined) return value
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

/** The JSON lines the server wrote on stdout so far. */
const linesOf = (serving: Serving): Array<Record<string, any>> =>
  serving.stdout().split("\n").filter((line) => line.startsWith("{")).map((line) => JSON.parse(line))

/** The operations listener's address, once the server has logged it. */
const opsOrigin = (serving: Serving) =>
  until("the operations listener", () => /Operations listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(serving.stdout())?.[1])

/** `animal_store_trace_spans_dropped_total` on `/metrics` (`undefined` when absent). */
const droppedSpans = async (ops: string): Promise<number | undefined> => {
  const text = await (await fetch(`${ops}/metrics`)).text()
  const match = /^animal_store_trace_spans_dropped_total (\S+)$/m.exec(text)
  return match === null ? undefined : Number(match[1])
}

const send = async (origin: string, path: string, headers: Record<string, string> = {}) => {
  const response = await fetch(`${origin}${path}`, { headers: { authorization: `Bearer ${key}`, ...headers } })
  await response.arrayBuffer()
  return response
}

/** How long the server takes to exit after SIGTERM, in milliseconds; it must exit 0. */
const shutdown = async (serving: Serving): Promise<number> => {
  const started = performance.now()
  serving.child.kill("SIGTERM")
  const { code } = await serving.exited
  expect(code).toBe(0)
  return performance.now() - started
}

const attribute = (span: Span, key: string) => {
  const value = span.attributes.find((entry) => entry.key === key)?.value
  return value === undefined ? undefined : Object.values(value)[0]
}

const key = "ask_live_tracingtestkey000001"
const traceId = "4bf92f3577b34da6a3ce929d0e0e4736"
const incomingSpanId = "00f067aa0ba902b7"

describe("traces over OTLP", () => {
  it("continue the incoming traceparent: server span, then core's checks, the operation and the store in one chain", async () => {
    const otlp = await receiver()
    const folder = Fs.mkdtempSync(Path.join(Os.tmpdir(), "animal-store-tracing-"))
    const serving = await startServe(["--store", `sqlite:${Path.join(folder, "animal-store.db")}`], {
      ANIMAL_STORE_API_KEYS: `${key}:pro`,
      ANIMAL_STORE_ACCESS_LOG: "off",
      OTEL_EXPORTER_OTLP_ENDPOINT: otlp.origin,
      OTEL_BSP_SCHEDULE_DELAY: "50"
    })
    try {
      const response = await fetch(`${serving.origin}/v1/pets/1`, {
        headers: {
          authorization: `Bearer ${key}`,
          traceparent: `00-${traceId}-${incomingSpanId}-01`,
          "x-request-id": "trace-test-request-1"
        }
      })
      expect(response.status).toBe(404)

      const deadline = Date.now() + 10_000
      const names = [
        "GET /v1/pets/{petId}",
        "GuardedPetOperations.admit",
        "ApiKeyAuth.authenticate",
        "SqliteStore.ApiKeyStore.findByDigest",
        "PlanRateLimiter.check",
        "SqliteStore.RateLimitStore.modify",
        "PetOperations.getPet",
        "SqliteStore.PetRepository.findById"
      ]
      const ofTrace = () => otlp.spans.filter((span) => span.traceId === traceId)
      while (Date.now() < deadline && !names.every((name) => ofTrace().some((span) => span.name === name))) {
        await new Promise((resolve) => setTimeout(resolve, 50))
      }
      const spans = ofTrace()
      const byName = (name: string) => {
        const found = spans.filter((span) => span.name === name)
        expect(found, name).toHaveLength(1)
        return found[0]!
      }
      const server = byName("GET /v1/pets/{petId}")
      expect(server.parentSpanId).toBe(incomingSpanId)
      expect(server.kind).toBe(2) // SPAN_KIND_SERVER
      expect(attribute(server, "http.request.method")).toBe("GET")
      expect(attribute(server, "http.route")).toBe("/v1/pets/{petId}")
      expect(Number(attribute(server, "http.response.status_code"))).toBe(404)
      expect(attribute(server, "animal_store.operation")).toBe("getPet")
      expect(attribute(server, "http.request.header.x-request-id")).toBe("trace-test-request-1")

      const admit = byName("GuardedPetOperations.admit")
      expect(admit.parentSpanId).toBe(server.spanId)
      expect(byName("ApiKeyAuth.authenticate").parentSpanId).toBe(admit.spanId)
      expect(byName("PlanRateLimiter.check").parentSpanId).toBe(admit.spanId)
      const getPet = byName("PetOperations.getPet")
      expect(getPet.parentSpanId).toBe(server.spanId)
      // A 404 is the domain's answer, not a fault: its span names the refusal and is not an error.
      expect(attribute(getPet, "error.type")).toBe("PetNotFound")
      expect(getPet.status?.code ?? 0).not.toBe(2) // STATUS_CODE_ERROR
      expect(attribute(admit, "error.type")).toBeUndefined()
      // The store, once for each check and for the operation, under the step that called it.
      expect(byName("SqliteStore.ApiKeyStore.findByDigest").parentSpanId).toBe(byName("ApiKeyAuth.authenticate").spanId)
      expect(byName("SqliteStore.RateLimitStore.modify").parentSpanId).toBe(byName("PlanRateLimiter.check").spanId)
      expect(byName("SqliteStore.PetRepository.findById").parentSpanId).toBe(byName("PetOperations.getPet").spanId)
      // One chain: every span of the trace leads up to the server span.
      const byId = new Map(spans.map((span) => [span.spanId, span]))
      for (const span of spans) {
        let at: Span | undefined = span
        while (at !== undefined && at !== server) at = at.parentSpanId === undefined ? undefined : byId.get(at.parentSpanId)
        expect(at, span.name).toBe(server)
      }
      expect(otlp.services).toContain("animal-store")
    } finally {
      serving.child.kill("SIGTERM")
      expect((await serving.exited).code).toBe(0)
      otlp.server.close()
      Fs.rmSync(folder, { recursive: true, force: true })
    }
  })
})

describe("trace export failures", () => {
  it("are logged once when exports start failing and once when they work again; the spans dropped are counted", async () => {
    const otlp = await receiver()
    const serving = await startServe(["--store", "memory", "--ops-port", "0"], {
      ANIMAL_STORE_API_KEYS: `${key}:pro`,
      ANIMAL_STORE_ACCESS_LOG: "off",
      OTEL_EXPORTER_OTLP_ENDPOINT: otlp.origin,
      OTEL_BSP_SCHEDULE_DELAY: "50",
      // A failing export gives up after a second (the standard setting; the default is 10 s).
      OTEL_EXPORTER_OTLP_TIMEOUT: "1000"
    })
    const failing = () => linesOf(serving).filter((line) => line.message.startsWith("Trace export failing"))
    const recovered = () => linesOf(serving).filter((line) => line.message === "Trace export recovered")
    try {
      const ops = await opsOrigin(serving)
      await send(serving.origin, "/v1/pets")
      await until("the first spans", () => otlp.spans.length > 0 || undefined)
      expect(await droppedSpans(ops)).toBe(0)

      await otlp.stop()
      await until("the failing line", async () => {
        await send(serving.origin, "/v1/pets")
        return failing().length > 0 || undefined
      })
      const droppedOnce = await until("the first dropped spans", async () => {
        const dropped = await droppedSpans(ops)
        return dropped !== undefined && dropped > 0 ? dropped : undefined
      })
      // More exports fail: counted, not logged again.
      await until("more dropped spans", async () => {
        await send(serving.origin, "/v1/pets")
        return (await droppedSpans(ops))! > droppedOnce || undefined
      })
      expect(failing()).toHaveLength(1)
      expect(failing()[0]).toMatchObject({
        logLevel: "WARN",
        annotations: { endpoint: `${otlp.origin}/v1/traces`, error: expect.stringMatching(/ECONNREFUSED|ECONNRESET|socket hang up/) }
      })
      expect(recovered()).toHaveLength(0)

      await otlp.restart()
      const received = otlp.spans.length
      await until("the recovered line", async () => {
        await send(serving.origin, "/v1/pets")
        return recovered().length > 0 || undefined
      })
      await until("spans received again", () => otlp.spans.length > received || undefined)
      await send(serving.origin, "/v1/pets")
      await new Promise((resolve) => setTimeout(resolve, 500))
      expect(failing()).toHaveLength(1)
      expect(recovered()).toHaveLength(1)
      const dropped = (await droppedSpans(ops))!
      expect(recovered()[0]).toMatchObject({ logLevel: "INFO", annotations: { endpoint: `${otlp.origin}/v1/traces` } })
      expect(recovered()[0]!.annotations.spansDropped).toBeGreaterThan(0)
      expect(recovered()[0]!.annotations.spansDropped).toBeLessThanOrEqual(dropped)
    } finally {
      serving.child.kill("SIGTERM")
      await serving.exited
      otlp.server.close()
    }
  })

  it("count the spans a full queue refuses while an export hangs, before any export has failed", async () => {
    const collector = await blackhole()
    const serving = await startServe(["--store", "memory", "--ops-port", "0"], {
      ANIMAL_STORE_API_KEYS: `${key}:pro`,
      ANIMAL_STORE_ACCESS_LOG: "off",
      OTEL_EXPORTER_OTLP_ENDPOINT: collector.origin,
      OTEL_BSP_SCHEDULE_DELAY: "50",
      OTEL_BSP_MAX_QUEUE_SIZE: "8",
      OTEL_EXPORTER_OTLP_TIMEOUT: "600000"
    })
    try {
      const ops = await opsOrigin(serving)
      // Each request makes several spans: the first batch hangs in its export, the queue fills.
      const dropped = await until("spans refused by the full queue", async () => {
        await send(serving.origin, "/v1/pets")
        const dropped = await droppedSpans(ops)
        return dropped !== undefined && dropped > 0 ? dropped : undefined
      })
      expect(dropped).toBeGreaterThan(0)
      expect(linesOf(serving).filter((line) => line.message.startsWith("Trace export"))).toEqual([])
    } finally {
      serving.child.kill("SIGTERM")
      await serving.exited
      collector.close()
    }
  })

  it("do not hold up shutdown: about as long with the collector refusing or hanging as with it answering", async () => {
    const otlp = await receiver()
    const collector = await blackhole()
    /** Serves a few traced requests, then shuts down: how long it took. */
    const timed = async (endpoint: string, env: Record<string, string> = {}) => {
      const serving = await startServe(["--store", "memory"], {
        ANIMAL_STORE_API_KEYS: `${key}:pro`,
        ANIMAL_STORE_ACCESS_LOG: "off",
        OTEL_EXPORTER_OTLP_ENDPOINT: endpoint,
        ...env
      })
      for (let i = 0; i < 3; i++) expect((await send(serving.origin, "/v1/pets")).status).toBe(200)
      await new Promise((resolve) => setTimeout(resolve, 300))
      return shutdown(serving)
    }
    try {
      const answering = await timed(otlp.origin)
      expect(otlp.spans.length).toBeGreaterThan(0)
      // The spans wait in the queue (5 s batches): the flush at shutdown meets the collector.
      const refused = await timed(await refusing())
      const hanging = await timed(collector.origin)
      // Also with an export in flight and retrying when the shutdown starts.
      const retrying = await timed(await refusing(), { OTEL_BSP_SCHEDULE_DELAY: "50" })
      // Before: 3 s more each (the SDK's flush waited for its own time limit).
      expect(refused).toBeLessThan(answering + 1500)
      expect(hanging).toBeLessThan(answering + 2000)
      expect(retrying).toBeLessThan(answering + 2000)
    } finally {
      otlp.server.close()
      collector.close()
    }
  })
})

describe("access lines", () => {
  it("carry the trace id when tracing is on: the continued traceparent's, or the new trace's; the query string; no runtime internals", async () => {
    const otlp = await receiver()
    const serving = await startServe(["--store", "memory"], {
      ANIMAL_STORE_API_KEYS: `${key}:pro`,
      OTEL_EXPORTER_OTLP_ENDPOINT: otlp.origin,
      OTEL_BSP_SCHEDULE_DELAY: "50"
    })
    try {
      await send(serving.origin, "/v1/pets?limit=2&status=sold", {
        traceparent: `00-${traceId}-${incomingSpanId}-01`,
        "x-request-id": "access-traced-1"
      })
      await send(serving.origin, "/v1/pets/1?fields=name", { "x-request-id": "access-traced-2" })
      const access = await until("both access lines", () => {
        const lines = linesOf(serving).filter((line) => line.message === "http.request")
        return lines.length >= 2 ? lines : undefined
      })
      expect(access[0]!.annotations).toMatchObject({
        method: "GET",
        path: "/v1/pets?limit=2&status=sold",
        status: 200,
        requestId: "access-traced-1",
        traceId
      })
      expect(access[1]!.annotations).toMatchObject({ path: "/v1/pets/1?fields=name", status: 404, requestId: "access-traced-2" })
      // The new trace's id: that of the server span with this request id.
      const server = await until("the second request's server span", () =>
        otlp.spans.find((span) =>
          span.kind === 2 && attribute(span, "http.request.header.x-request-id") === "access-traced-2"
        ))
      expect(access[1]!.annotations.traceId).toBe(server.traceId)
      expect(server.traceId).not.toBe(traceId)
      for (const line of linesOf(serving)) {
        expect(Object.keys(line)).not.toContain("fiberId")
        expect(Object.keys(line)).not.toContain("spans")
        if ("annotations" in line) expect(Object.keys(line.annotations).length).toBeGreaterThan(0)
      }
    } finally {
      serving.child.kill("SIGTERM")
      await serving.exited
      otlp.server.close()
    }
  })

  it("carry no trace id when tracing is off", async () => {
    const serving = await startServe(["--store", "memory"], { ANIMAL_STORE_API_KEYS: `${key}:pro` })
    try {
      await send(serving.origin, "/v1/pets?limit=1", { traceparent: `00-${traceId}-${incomingSpanId}-01` })
      const [line] = await until("the access line", () => {
        const lines = linesOf(serving).filter((line) => line.message === "http.request")
        return lines.length > 0 ? lines : undefined
      })
      expect(line!.annotations.path).toBe("/v1/pets?limit=1")
      expect(Object.keys(line!.annotations)).not.toContain("traceId")
      expect(Object.keys(line!)).toEqual(["message", "logLevel", "timestamp", "annotations"])
    } finally {
      serving.child.kill("SIGTERM")
      await serving.exited
    }
  })
})
