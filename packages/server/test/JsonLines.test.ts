import { describe, expect, it } from "@effect/vitest"
import { Effect, Logger } from "effect"
import { Writable } from "node:stream"
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
})
