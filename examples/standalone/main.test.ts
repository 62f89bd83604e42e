import { HttpServer } from "@effect/platform"
import { describe, expect, it } from "@effect/vitest"
import { Context, Effect, Layer } from "effect"
import * as ChildProcess from "node:child_process"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"
import { server } from "./main.js"

const bin = Path.resolve(Path.dirname(fileURLToPath(import.meta.url)), "../../packages/server/dist/cli/animal-store.js")

/** `animal-store keys create --plan pro --store sqlite:<file>`: the key, printed once on stdout. */
const createKey = (filename: string) =>
  Effect.promise(() =>
    new Promise<string>((resolve, reject) =>
      ChildProcess.execFile(process.execPath, [bin, "keys", "create", "--plan", "pro", "--store", `sqlite:${filename}`], (error, stdout) =>
        error ? reject(error) : resolve(stdout.trim()))
    )
  )

/** The server on `filename`, listening on a random port until the scope closes. */
const serve = (filename: string) =>
  Effect.map(Layer.build(Layer.orDie(server(filename, 0))), (context) => {
    const address = Context.get(context, HttpServer.HttpServer).address
    return address._tag === "TcpAddress" ? `http://127.0.0.1:${address.port}` : ""
  })

describe("the standalone server on a SQLite file", () => {
  it.live("serves keys created with the CLI, and keeps its data across restarts", () =>
    Effect.gen(function*() {
      const folder = yield* Effect.acquireRelease(
        Effect.sync(() => Fs.mkdtempSync(Path.join(Os.tmpdir(), "animal-store-standalone-"))),
        (folder) => Effect.sync(() => Fs.rmSync(folder, { recursive: true, force: true }))
      )
      const filename = Path.join(folder, "data", "animal-store.db")
      // `keys` commands act on an existing store only: the server creates the file first.
      const secret = yield* Effect.scoped(Effect.gen(function*() {
        const origin = yield* serve(filename)
        const secret = yield* createKey(filename)
        expect(secret).toMatch(/^ask_live_/)
        const created = yield* Effect.promise(() =>
          fetch(`${origin}/v1/pets`, {
            method: "POST",
            headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" },
            body: JSON.stringify({ name: "Rex", categoryId: 1 })
          })
        )
        expect(created.status).toBe(201)
        return secret
      }))
      const headers = { authorization: `Bearer ${secret}`, "content-type": "application/json" }

      yield* Effect.scoped(Effect.gen(function*() {
        const origin = yield* serve(filename)
        const listed = yield* Effect.promise(() => fetch(`${origin}/v1/pets`, { headers }))
        expect(yield* Effect.promise(() => listed.json())).toEqual([{ id: 1, name: "Rex", categoryId: 1, status: "available" }])
        // Both requests counted on the file across the restart: the pro plan's 10,000 a day, less 2.
        expect(listed.headers.get("ratelimit")).toMatch(/"day";r=9998;/)
      }))
    }).pipe(Effect.scoped))
})
