import { describe, expect, it } from "@effect/vitest"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { startServe } from "./support/CliProcess.js"

// Runs the built bin (`pnpm build` first, as `pnpm test` does).
describe("Idempotency-Key across a kill -9 of the standalone server", () => {
  it("a retry after the server was killed with SIGKILL and restarted on the same file replays the first 201", async () => {
    const folder = Fs.mkdtempSync(Path.join(Os.tmpdir(), "animal-store-idempotency-"))
    try {
      const database = Path.join(folder, "animal-store.db")
      const secret = "ask_live_idempotencycrash0000"
      const env = { ANIMAL_STORE_API_KEYS: `${secret}:pro` }
      const post = (origin: string, body: string) =>
        fetch(`${origin}/v1/pets`, {
          method: "POST",
          headers: {
            authorization: `Bearer ${secret}`,
            "content-type": "application/json",
            "idempotency-key": "crash-test-1"
          },
          body
        })

      const first = await startServe(["--store", `sqlite:${database}`], env)
      const created = await post(first.origin, JSON.stringify({ name: "Rex", categoryId: 3 }))
      expect(created.status).toBe(201)
      const pet = (await created.json()) as { readonly id: number }
      first.child.kill("SIGKILL")
      const killed = await first.exited
      expect(killed.code).toBeNull()
      expect(first.child.signalCode).toBe("SIGKILL")

      const second = await startServe(["--store", `sqlite:${database}`], env)
      try {
        const replay = await post(second.origin, `{"categoryId": 3, "name": "Rex"}`)
        expect(replay.status).toBe(201)
        expect(replay.headers.get("idempotent-replayed")).toBe("true")
        expect(replay.headers.get("location")).toBe(`/v1/pets/${pet.id}`)
        expect(await replay.json()).toEqual(pet)
        const reused = await post(second.origin, JSON.stringify({ name: "Tom", categoryId: 3 }))
        expect(reused.status).toBe(422)
        const listed = await fetch(`${second.origin}/v1/pets`, { headers: { authorization: `Bearer ${secret}` } })
        expect(await listed.json()).toEqual([pet])
      } finally {
        second.child.kill("SIGTERM")
        await second.exited
      }
    } finally {
      Fs.rmSync(folder, { recursive: true, force: true })
    }
  })
})
