import { describe, expect, it } from "@effect/vitest"
import { Cause, Effect, Logger } from "effect"
import * as fc from "effect/FastCheck"
import { Writable } from "node:stream"
import { AccessLog } from "@animal-store/http-adapter"
import * as JsonLines from "../src/internal/jsonLines.js"

const collecting = () => {
  const writes: Array<string> = []
  const stream = new Writable({
    write(chunk, _encoding, callback) {
      writes.push(String(chunk))
      callback()
    }
  })
  return { writes, stream }
}

const nextTurn = () => new Promise((resolve) => setImmediate(resolve))

describe("the server's JSON lines", () => {
  it.live("writes the lines of one turn in one write, in order, in Effect's JSON format without its internals", () =>
    Effect.gen(function*() {
      const { stream, writes } = collecting()
      const logger = Logger.replace(Logger.defaultLogger, JsonLines.make(stream))
      yield* Effect.provide(
        Effect.all([
          Effect.logInfo("first").pipe(Effect.annotateLogs({ status: 200 })),
          Effect.logWarning("second")
        ]),
        logger
      )
      expect(writes).toEqual([])
      yield* Effect.promise(nextTurn)
      expect(writes).toHaveLength(1)
      const lines = writes[0]!.split("\n")
      expect(lines.at(-1)).toBe("")
      const [first, second] = lines.slice(0, -1).map((line) => JSON.parse(line))
      expect(first).toMatchObject({ message: "first", logLevel: "INFO", annotations: { status: 200 } })
      expect(second).toMatchObject({ message: "second", logLevel: "WARN" })
      // No fiber id, and no empty annotation or span maps.
      expect(Object.keys(first)).toEqual(["message", "logLevel", "timestamp", "annotations"])
      expect(Object.keys(second)).toEqual(["message", "logLevel", "timestamp"])

      yield* Effect.provide(Effect.logInfo("third"), logger)
      yield* Effect.promise(nextTurn)
      expect(writes).toHaveLength(2)
      expect(JSON.parse(writes[1]!).message).toBe("third")
    }))

  it.live("keep a line's cause and its log spans when it has them", () =>
    Effect.gen(function*() {
      const { stream, writes } = collecting()
      yield* Effect.provide(
        Effect.logError("failed", Cause.fail("boom")).pipe(Effect.withLogSpan("work")),
        Logger.replace(Logger.defaultLogger, JsonLines.make(stream))
      )
      yield* Effect.promise(nextTurn)
      const line = JSON.parse(writes.join(""))
      expect(Object.keys(line)).toEqual(["message", "logLevel", "timestamp", "cause", "spans"])
      expect(line).toMatchObject({ message: "failed", logLevel: "ERROR", cause: "Error: boom" })
      expect(typeof line.spans.work).toBe("number")
    }))

  it.live("an access line is the line the logger writes for AccessLog.log of the same request", () =>
    Effect.gen(function*() {
      const entries: ReadonlyArray<AccessLog.Entry> = [
        { method: "GET", path: "/v1/pets?limit=5&status=sold", status: 200, durationMs: 3, client: "127.0.0.1", keyId: "key_abc" },
        { method: "POST", path: "/v1/pets", status: 401, durationMs: 0, client: "::1", keyId: undefined },
        {
          method: "GET",
          path: "/v1/pets/1",
          status: 404,
          durationMs: 1,
          client: "10.0.0.1",
          keyId: "key_abc",
          requestId: "r-1",
          traceId: "4bf92f3577b34da6a3ce929d0e0e4736"
        }
      ]
      for (const entry of entries) {
        const fromLogger = collecting()
        const written = collecting()
        const writer = JsonLines.accessLog(written.stream)
        const answeredAt = Date.UTC(2026, 10, 24, 12, 0, 0, 123)
        yield* Effect.provide(
          Effect.zipRight(
            AccessLog.log(entry),
            AccessLog.write(writer, entry, answeredAt)
          ),
          Logger.replace(Logger.defaultLogger, JsonLines.make(fromLogger.stream))
        )
        yield* Effect.promise(nextTurn)
        const logged = JSON.parse(fromLogger.writes.join(""))
        const direct = JSON.parse(written.writes.join(""))
        // The logger stamps its own clock, the writer the time of the answer.
        expect(direct.timestamp).toBe("2026-11-24T12:00:00.123Z")
        expect(direct).toEqual({ ...logged, timestamp: direct.timestamp })
        expect(Object.keys(direct)).toEqual(Object.keys(logged))
      }
    }))

  it.prop(
    "an access line is JSON.stringify of the logger's object, for any entry and time",
    {
      entry: fc.record({
        method: fc.string({ unit: "binary" }),
        path: fc.string({ unit: "binary" }),
        status: fc.integer({ min: 100, max: 599 }),
        durationMs: fc.integer({ min: 0, max: 600_000 }),
        client: fc.string({ unit: "binary" }),
        keyId: fc.option(fc.string({ unit: "binary" }), { nil: undefined }),
        requestId: fc.option(fc.string({ unit: "binary" }), { nil: undefined }),
        traceId: fc.option(fc.string({ unit: "binary" }), { nil: undefined })
      }),
      times: fc.array(fc.integer({ min: 0, max: 8_640_000_000_000 }), { minLength: 1, maxLength: 3 })
    },
    ({ entry, times }) => {
      for (const time of times) {
        expect(JsonLines.accessLine(entry, new Date(time))).toBe(JSON.stringify({
          message: AccessLog.message,
          logLevel: "INFO",
          timestamp: new Date(time).toISOString(),
          annotations: { ...entry }
        }))
      }
    }
  )
})

describe("the writes of the server's JSON lines", () => {
  it.live("hold at most 4096 bytes of whole lines each, a longer line alone, every line once and in order", () =>
    Effect.gen(function*() {
      const { stream, writes } = collecting()
      const logger = Logger.replace(Logger.defaultLogger, JsonLines.make(stream))
      // Lines of about 100 to 1,500 bytes, some multi-byte (é is 2 bytes, 🐕 4), and one of 10 kB.
      const messages = Array.from({ length: 60 }, (_, i) =>
        i === 30 ? "x".repeat(10_000) : `${i} ${(i % 3 === 0 ? "é🐕" : "a").repeat((i * 37) % 500)}`)
      yield* Effect.provide(Effect.forEach(messages, (message) => Effect.logInfo(message), { discard: true }), logger)
      yield* Effect.promise(nextTurn)
      expect(JsonLines.maxWrite).toBe(4096)
      expect(writes.length).toBeGreaterThan(3)
      for (const write of writes) {
        expect(write.endsWith("\n")).toBe(true)
        const lines = write.slice(0, -1).split("\n")
        if (Buffer.byteLength(write) > 4096) expect(lines).toHaveLength(1)
      }
      // Fuller than a line at a time: a write and the next line would pass 4096 bytes.
      writes.slice(0, -1).forEach((write, i) => {
        const next = writes[i + 1]!.slice(0, writes[i + 1]!.indexOf("\n") + 1)
        expect(Buffer.byteLength(write) + Buffer.byteLength(next)).toBeGreaterThan(4096)
      })
      const logged = writes.join("").slice(0, -1).split("\n").map((line) => JSON.parse(line).message)
      expect(logged).toEqual(messages)
    }))

  it.live("split the access log's batches too", () =>
    Effect.gen(function*() {
      const { stream, writes } = collecting()
      const writer = JsonLines.accessLog(stream)
      const entry: AccessLog.Entry = { method: "GET", path: "/v1/pets", status: 200, durationMs: 1, client: "127.0.0.1", keyId: undefined }
      for (let i = 0; i < 100; i++) writer({ ...entry, path: `/v1/pets/${i}` }, new Date(0))
      yield* Effect.promise(nextTurn)
      expect(writes.length).toBeGreaterThan(1)
      for (const write of writes) expect(Buffer.byteLength(write)).toBeLessThanOrEqual(4096)
      const paths = writes.join("").slice(0, -1).split("\n").map((line) => JSON.parse(line).annotations.path)
      expect(paths).toEqual(Array.from({ length: 100 }, (_, i) => `/v1/pets/${i}`))
    }))
})
