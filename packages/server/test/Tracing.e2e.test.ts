/**
 * Traces of the bundled server exported over OTLP/HTTP (JSON) to a receiver
 * in this test: a request with a W3C `traceparent` gives one trace with that
 * trace id, its server span a child of the incoming span, and core's checks
 * and operation spans beneath it in one chain.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Fs from "node:fs"
import * as Http from "node:http"
import type * as Net from "node:net"
import * as Os from "node:os"
import * as Path from "node:path"
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

/** A receiver of OTLP/HTTP JSON traces: the spans and the resources' service names received so far. */
const receiver = async () => {
  const spans: Array<Span> = []
  const services = new Set<string>()
  const server = Http.createServer((request, response) => {
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
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  return { spans, services, server, origin: `http://127.0.0.1:${(server.address() as Net.AddressInfo).port}` }
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
