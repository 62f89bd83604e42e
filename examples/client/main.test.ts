import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { Host } from "../http-host/main.js"
import { startHost } from "../http-host/main.js"
import { runImport } from "./main.js"

describe("a host importing its catalogue into a remote store with the client", () => {
  let host: Host
  beforeAll(async () => {
    host = await startHost(0)
  })
  afterAll(() => host.close())

  it("creates each entry once, however often the import runs", async () => {
    const apiKey = await host.issueKey("pro")
    const entries = [
      { sku: "A-1", name: "Rex", categoryId: 1 },
      { sku: "A-2", name: "Tom", categoryId: 2 },
      { sku: "A-3", name: "Kit", categoryId: 2 }
    ]
    const first = await runImport(`${host.origin}/v1`, apiKey, entries)
    expect(first).toEqual({ ids: [1, 2, 3], listed: 3 })
    const again = await runImport(`${host.origin}/v1`, apiKey, [...entries, { sku: "A-4", name: "Bo", categoryId: 3 }])
    expect(again).toEqual({ ids: [1, 2, 3, 4], listed: 4 })
  })
})
