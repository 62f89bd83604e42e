import { describe, expect, it } from "@effect/vitest"
import * as StoreError from "../src/StoreError.js"

describe("StoreError cause helpers", () => {
  const chain = () => {
    const root = Object.assign(new Error("disk I/O error"), { code: "SQLITE_IOERR_WRITE" })
    const middle = Object.assign(new Error("statement failed", { cause: root }), { code: 42 })
    return new Error("Storing an animal", { cause: middle })
  }

  it("walk the cause chain outermost first, to the first code accepted", () => {
    expect(StoreError.causeChain(chain()).map((link) => (link as Error).message)).toEqual([
      "Storing an animal",
      "statement failed",
      "disk I/O error"
    ])
    expect(StoreError.codeAlongCauses(chain(), (code) => code.startsWith("SQLITE_"))).toBe("SQLITE_IOERR_WRITE")
    expect(StoreError.codeAlongCauses(chain(), (code) => code.startsWith("08"))).toBeUndefined()
    expect(StoreError.messagesAlongCauses(chain())).toBe("Storing an animal: statement failed: disk I/O error")
    expect(StoreError.messagesAlongCauses("plain text")).toBe("plain text")
  })

  it("stop after 8 links, and on a cycle", () => {
    const cyclic: { cause?: unknown; code: string } = { code: "X" }
    cyclic.cause = cyclic
    expect(StoreError.causeChain(cyclic)).toHaveLength(8)
    let deep: unknown = Object.assign(new Error("deepest"), { code: "SQLITE_FULL" })
    for (let i = 0; i < 9; i++) deep = new Error(`level ${i}`, { cause: deep })
    expect(StoreError.codeAlongCauses(deep, () => true)).toBeUndefined()
  })
})
