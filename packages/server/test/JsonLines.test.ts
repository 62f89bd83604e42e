import { describe, expect, it } from "@effect/vitest"
import { Effect, FiberId, Logger } from "effect"
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
  it.live("writes the lines of one turn in one write, in order, in Effect's JSON format", () =>
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
      expect(Object.keys(first).sort()).toEqual(["annotations", "fiberId", "logLevel", "message", "spans", "timestamp"])

      yield* Effect.provide(Effect.logInfo("third"), logger)
      yield* Effect.promise(nextTurn)
      expect(writes).toHaveLength(2)
      expect(JSON.parse(writes[1]!).message).toBe("third")
    }))

  it.live("an access line is the line the logger writes for AccessLog.log of the same request", () =>
    Effect.gen(function*() {
      const entries: ReadonlyArray<AccessLog.Entry> = [
        { method: "GET", path: "/v1/pets", status: 200, durationMs: 3, client: "127.0.0.1", keyId: "key_abc" },
        { method: "POST", path: "/v1/pets", status: 401, durationMs: 0, client: "::1", keyId: undefined }
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
        // Same fiber, so same fiberId; the logger stamps its own clock, the writer the time of the answer.
        expect(direct.timestamp).toBe("2026-11-24T12:00:00.123Z")
        expect(direct).toEqual({ ...logged, timestamp: direct.timestamp })
        expect(Object.keys(direct)).toEqual(Object.keys(logged))
      }
    }))

  it.prop(
    "an access line is JSON.stringify of the logger's object, for any entry, time and fiber",
    {
      entry: fc.record({
        method: fc.string({ unit: "binary" }),
        path: fc.string({ unit: "binary" }),
        status: fc.integer({ min: 100, max: 599 }),
        durationMs: fc.integer({ min: 0, max: 600_000 }),
        client: fc.string({ unit: "binary" }),
        keyId: fc.option(fc.string({ unit: "binary" }), { nil: undefined })
      }),
      times: fc.array(fc.integer({ min: 0, max: 8_640_000_000_000 }), { minLength: 1, maxLength: 3 }),
      fiber: fc.nat()
    },
    ({ entry, fiber, times }) => {
      for (const time of times) {
        const fiberId = FiberId.runtime(fiber, 0)
        expect(JsonLines.accessLine(entry, fiberId, new Date(time))).toBe(JSON.stringify({
          message: AccessLog.message,
          logLevel: "INFO",
          timestamp: new Date(time).toISOString(),
          annotations: { ...entry },
          spans: {},
          fiberId: FiberId.threadName(fiberId)
        }))
      }
    }
  )
})
