import { MemoryStore } from "@animal-store/memory-store"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Fiber } from "effect"
import * as SlowClient from "./support/SlowClient.js"
import { bearer, json, start } from "./support/TestServer.js"
import type { TestServer } from "./support/TestServer.js"

/** Short limits, so that the test takes seconds; the check of the limits runs every second. */
const limits = { headersTimeout: 1_000, requestTimeout: 2_000 }
const checkInterval = 1_000
const slowClients = 10

interface Answer {
  readonly status: number
  readonly ms: number
}

/** Lists the animals every 100 ms, recording each answer, until interrupted. */
const others = (api: TestServer, secret: string, answers: Array<Answer>) =>
  Effect.gen(function*() {
    const started = performance.now()
    const response = yield* api.request("/v1/pets", { headers: bearer(secret) })
    yield* Effect.promise(() => response.text())
    answers.push({ status: response.status, ms: performance.now() - started })
    yield* Effect.sleep("100 millis")
  }).pipe(Effect.forever)

/** Runs `slowClients` copies of `request` while others are being answered; their outcomes and the others' answers. */
const whileOthersAsk = (api: TestServer, secret: string, request: SlowClient.SlowRequest) =>
  Effect.gen(function*() {
    const answers: Array<Answer> = []
    const fiber = yield* Effect.fork(others(api, secret, answers))
    const outcomes = yield* Effect.all(
      Array.from({ length: slowClients }, () => SlowClient.send(api.origin, request)),
      { concurrency: "unbounded" }
    )
    yield* Fiber.interrupt(fiber)
    return { outcomes, answers }
  })

const expectCutOff = (outcome: SlowClient.SlowOutcome, request: SlowClient.SlowRequest, timeout: number) => {
  expect(outcome.sentSlowly).toBeLessThan(request.slowly.length)
  expect(outcome.elapsedMs).toBeGreaterThanOrEqual(timeout - 50)
  expect(outcome.elapsedMs).toBeLessThan(timeout + checkInterval + 1_000)
  const response = SlowClient.parseResponse(outcome.received)
  expect(response.statusLine).toBe("HTTP/1.1 400 Bad Request")
  expect(response.body).toEqual({ code: "invalid_request", message: "The request was not received in time", status: 400 })
}

const expectAnswered = (answers: ReadonlyArray<Answer>) => {
  expect(answers.length).toBeGreaterThanOrEqual(5)
  for (const answer of answers) {
    expect(answer.status).toBe(200)
    expect(answer.ms).toBeLessThan(1_000)
  }
}

describe("slow clients on a real socket", () => {
  it.scopedLive("a client sending its headers too slowly is cut off, and the others are answered meanwhile", () =>
    Effect.gen(function*() {
      const api = yield* start({ ports: MemoryStore.layer, limits })
      const { secret } = yield* api.issue("pro")
      const request: SlowClient.SlowRequest = {
        slowly: `GET /v1/pets HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${secret}\r\nX-Padding: ${"a".repeat(100)}\r\n\r\n`,
        intervalMs: 20
      }
      const { answers, outcomes } = yield* whileOthersAsk(api, secret, request)
      for (const outcome of outcomes) expectCutOff(outcome, request, limits.headersTimeout)
      expectAnswered(answers)
    }))

  it.scopedLive("a client sending its body too slowly is cut off, nothing is stored, and the others are answered meanwhile", () =>
    Effect.gen(function*() {
      const api = yield* start({ ports: MemoryStore.layer, limits })
      const { secret } = yield* api.issue("pro")
      const body = JSON.stringify({ name: "Slow", categoryId: 1 }).padEnd(100)
      const request: SlowClient.SlowRequest = {
        atOnce: `POST /v1/pets HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${secret}\r\n` +
          `Content-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`,
        slowly: body,
        intervalMs: 40
      }
      const { answers, outcomes } = yield* whileOthersAsk(api, secret, request)
      for (const outcome of outcomes) expectCutOff(outcome, request, limits.requestTimeout)
      expectAnswered(answers)
      expect(yield* json(yield* api.request("/v1/pets", { headers: bearer(secret) }))).toEqual([])
    }))

  it.scopedLive("a body that arrives in parts is read whole before its request is handled, and the connection goes on", () =>
    Effect.gen(function*() {
      const api = yield* start({ ports: MemoryStore.layer, limits })
      const { secret } = yield* api.issue("pro")
      const post = (authorization: string, body: string) =>
        `POST /v1/pets HTTP/1.1\r\nHost: x\r\n${authorization}Content-Type: application/json\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`
      const created = JSON.stringify({ name: "Part by part", categoryId: 3 })
      const [head, body] = post(`Authorization: Bearer ${secret}\r\n`, created).split("\r\n\r\n")
      const outcome = yield* SlowClient.send(api.origin, {
        atOnce: `${head}\r\n\r\n`,
        slowly: body + post("", JSON.stringify({ name: "No key", categoryId: 1 })) +
          `GET /v1/pets HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${secret}\r\nConnection: close\r\n\r\n`,
        intervalMs: 5,
        chunkSize: 7
      })
      const responses = outcome.received.split(/(?=HTTP\/1\.1 )/).map(SlowClient.parseResponse)
      expect(responses.map((response) => response.statusLine)).toEqual([
        "HTTP/1.1 201 Created",
        "HTTP/1.1 401 Unauthorized",
        "HTTP/1.1 200 OK"
      ])
      expect(responses[0]!.body).toEqual({ id: 1, name: "Part by part", categoryId: 3, status: "available" })
      expect(responses[2]!.body).toEqual([responses[0]!.body])
    }))
})
