import { describe, expect, it } from "vitest"
import { main } from "./main.js"

describe("in-process example", () => {
  it("embeds the store, lists, serves a guarded call and reports a typed error", async () => {
    const lines: Array<string> = []
    await main((line) => lines.push(line))
    expect(lines).toEqual([
      "available: Rex",
      "a client listed 2 pets; 59/60 left this minute",
      "rejected: 400 invalid_request: Invalid pet: name must not be empty"
    ])
  })
})
