// In-process: RequestHandler.handle for getPet/401 on a store (memory|sqlite), 64 at a time; CPU µs/request.
import { AccessConfig, AnimalStore } from "@animal-store/core"
import { RequestHandler } from "@animal-store/http-adapter"
import { MemoryStore } from "@animal-store/memory-store"
import { SqliteStore } from "@animal-store/sqlite-store"
import { Effect, Layer, ManagedRuntime, Redacted } from "effect"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
const which = process.argv[2] ?? "memory"
const scenario = process.argv[3] ?? "get"
const n = Number(process.argv[4] ?? 40000)
const key = "ask_live_0123456789abcdefABCDEF"
const store = which === "memory" ? MemoryStore.layer : SqliteStore.layer({ filename: Path.join(Fs.mkdtempSync(Path.join(Os.tmpdir(), "inproc-")), "a.db") } as any)
const { MemoryRateLimitStore } = await import("@animal-store/memory-store")
const store2 = which === "sqlite-memrl" ? Layer.merge(SqliteStore.layer({ filename: Path.join(Fs.mkdtempSync(Path.join(Os.tmpdir(), "inproc-")), "a.db") } as any), MemoryRateLimitStore.layer) : store
const services = AnimalStore.layer.pipe(Layer.provide(AccessConfig.layer({ anonymousPerMinute: 1e9 })), Layer.provide(store2))
const rt = ManagedRuntime.make(services)
const { ApiKeyAuth } = await import("@animal-store/core")
await rt.runPromise(Effect.flatMap(ApiKeyAuth.ApiKeyAuth, (a) => a.provision(Redacted.make(key), { plan: "enterprise", limits: { perMinute: 1e9, perDay: 1e9 } } as any)).pipe(Effect.orDie))
const handle = await rt.runPromise(RequestHandler.make({ accessLog: false }))
const body = (s: string) => (_: number) => Effect.succeed(new TextEncoder().encode(s))
const req = (method: string, url: string, auth: boolean, payload = "") => ({ method, url, headers: { host: "localhost", ...(auth ? { authorization: `Bearer ${key}` } : {}), ...(payload ? { "content-type": "application/json" } : {}) }, remoteAddress: "127.0.0.1", body: body(payload) })
for (let i = 0; i < 50; i++) { const r = await rt.runPromise(handle(req("POST", "/v1/pets", true, '{"name":"rex","categoryId":1}') as any)); if (i === 0) console.log("create", r.status) }
const make = (i: number) => scenario === "get" ? req("GET", `/v1/pets/${(i % 50) + 1}`, true) : scenario === "401" ? req("GET", "/v1/pets", false) : scenario === "list" ? req("GET", "/v1/pets?limit=20", true) : req("POST", "/v1/pets", true, '{"name":"rex","categoryId":1}')
const run = async (count: number) => {
  let next = 0
  const worker = async () => { while (next < count) { const i = next++; const r = await rt.runPromise(handle(make(i) as any)); if (i === 0 && r.status >= 400 && scenario !== "401") console.log("status", r.status, String(r.body)) } }
  await Promise.all(Array.from({ length: 64 }, worker))
}
await run(5000)
const c0 = process.cpuUsage(); const t0 = performance.now()
await run(n)
const c = process.cpuUsage(c0)
console.log(`${which} ${scenario}: cpu ${((c.user + c.system) / n).toFixed(1)} µs/req, wall ${((performance.now() - t0) * 1000 / n).toFixed(1)} µs/req`)
await rt.dispose()
