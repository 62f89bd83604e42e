import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { Host } from "./main.js"
import { startHost } from "./main.js"

describe("a host Node http server mounting the web handler", () => {
  let host: Host
  beforeAll(async () => {
    host = await startHost(0)
  })
  afterAll(() => host.close())

  it("keeps its own routes", async () => {
    const health = await fetch(`${host.origin}/health`)
    expect(await health.text()).toBe("ok")
    expect((await fetch(`${host.origin}/elsewhere`)).status).toBe(404)
  })

  it("serves Animal Store under /v1, with keys the host issues", async () => {
    const secret = await host.issueKey("pro")
    const headers = { authorization: `Bearer ${secret}`, "content-type": "application/json" }
    const created = await fetch(`${host.origin}/v1/pets`, {
      method: "POST",
      headers,
      body: JSON.stringify({ name: "Rex", categoryId: 1 })
    })
    expect(created.status).toBe(201)
    expect(created.headers.get("location")).toBe("/v1/pets/1")
    const listed = await fetch(`${host.origin}/v1/pets`, { headers })
    expect(await listed.json()).toEqual([{ id: 1, name: "Rex", categoryId: 1, status: "available" }])
    expect(listed.headers.get("x-ratelimit-limit")).toBe("300")
    expect(listed.headers.get("ratelimit")).toMatch(/"day";r=9998;/)
  })

  it("answers Animal Store's errors with the Error body and the headers", async () => {
    const anonymous = await fetch(`${host.origin}/v1/pets`)
    expect(anonymous.status).toBe(401)
    expect(anonymous.headers.get("www-authenticate")).toBe("Bearer realm=\"animal-store\"")
    expect(anonymous.headers.get("x-ratelimit-limit")).toBe("60")
    expect(await anonymous.json()).toMatchObject({ code: "unauthorized", status: 401 })
    const orders = await fetch(`${host.origin}/v1/store/orders`)
    expect(await orders.json()).toMatchObject({ code: "not_found", status: 404 })
  })
})
