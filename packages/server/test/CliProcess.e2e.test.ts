import { describe, expect, it } from "@effect/vitest"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { Effect, Layer } from "effect"
import * as StoreLocation from "../src/StoreLocation.js"
import { halfSentPost, runCli, startServe } from "./support/CliProcess.js"

/** Creates the SQLite store at `filename` (with its folder), as `serve` does. */
const createStore = (filename: string) =>
  Effect.runPromise(Effect.scoped(Layer.build(StoreLocation.layer({ _tag: "Sqlite", filename }))))

const temporaryFolder = () => Fs.mkdtempSync(Path.join(Os.tmpdir(), "animal-store-cli-"))

const expectOneLineFailure = (finished: { code: number | null; stderr: string; stdout: string }, pattern: RegExp) => {
  expect(finished.code).not.toBe(0)
  expect(finished.code).not.toBeNull()
  const lines = finished.stderr.split("\n").filter((line) => line.length > 0)
  expect(lines).toHaveLength(1)
  expect(lines[0]).toMatch(pattern)
  expect(finished.stderr).not.toMatch(/\n\s+at /)
}


describe.concurrent("the animal-store command", () => {
  it("exits non-zero with one line on stderr, without a stack trace, on bad configuration", async () => {
    const folder = temporaryFolder()
    Fs.writeFileSync(Path.join(folder, "file"), "")
    const secret = "ask_test_provisionedkey000000"
    const token = "a-short-admin-token-0123456789"
    const [unknownFlag, badDatabase, badKeys, shortToken, tokenWithoutOps] = await Promise.all([
      runCli(["serve", "--verbose"]),
      runCli(["serve", "--port", "0", "--store", `sqlite:${Path.join(folder, "file", "x.db")}`]),
      runCli(["serve", "--port", "0", "--store", "memory"], { ANIMAL_STORE_API_KEYS: `${secret}:pro` }),
      runCli(["serve", "--port", "0", "--store", "memory", "--ops-port", "0"], { ANIMAL_STORE_ADMIN_TOKEN: token }),
      runCli(["serve", "--port", "0", "--store", "memory"], { ANIMAL_STORE_ADMIN_TOKEN: token.repeat(2) })
    ])
    expectOneLineFailure(unknownFlag, /^animal-store: Received unknown argument: '--verbose'$/)
    expectOneLineFailure(badDatabase, /^animal-store: cannot use the store sqlite:.*x\.db: /)
    expectOneLineFailure(badKeys, /^animal-store: ANIMAL_STORE_API_KEYS entry 1: .*staging key, but the environment is production$/)
    expect(badKeys.stderr).not.toContain(secret)
    expectOneLineFailure(shortToken, /^animal-store: ANIMAL_STORE_ADMIN_TOKEN must be at least 32 characters long$/)
    expectOneLineFailure(tokenWithoutOps, /^animal-store: ANIMAL_STORE_ADMIN_TOKEN is set but --ops-port is not: /)
    for (const finished of [shortToken, tokenWithoutOps]) expect(finished.stdout + finished.stderr).not.toContain(token)
    Fs.rmSync(folder, { recursive: true, force: true })
  })

  it("issues and lists keys on a SQLite file, showing a secret only when it is issued; never creates a store", async () => {
    const folder = temporaryFolder()
    const filename = Path.join(folder, "data", "keys.db")
    const store = ["--store", `sqlite:${filename}`]
    const [missing, memory] = await Promise.all([runCli(["keys", "list", ...store]), runCli(["keys", "create", "--plan", "free", "--store", "memory"])])
    expectOneLineFailure(missing, /^animal-store: no store at sqlite:.*keys\.db \(commands on an existing store never create one/)
    expect(missing.stdout).toBe("")
    expect(Fs.readdirSync(folder)).toEqual([])
    expectOneLineFailure(memory, /^animal-store: the memory store holds nothing outside a running server/)
    expect(memory.stdout).toBe("")
    await createStore(filename)

    const created = await runCli(["keys", "create", "--plan", "enterprise", "--per-minute", "5", "--per-day", "50", ...store])
    expect(created.code).toBe(0)
    const secret = created.stdout.trim()
    expect(secret).toMatch(/^ask_live_[A-Za-z0-9_-]{16,}$/)
    const id = /Created key (\S+) \(enterprise, production\)/.exec(created.stderr)![1]!
    const listed = await runCli(["keys", "list", ...store])
    expect(listed.code).toBe(0)
    expect(listed.stdout).toContain(id)
    expect(listed.stdout).toMatch(/enterprise\s+5\/min 50\/day\s+production\s+active\s+fixed\s+never\s+0\/min 0\/day/)
    expect(listed.stdout).not.toContain(secret)
    const json = await runCli(["keys", "list", "--json", ...store])
    expect(json.code).toBe(0)
    expect(json.stderr).toBe("")
    expect(JSON.parse(json.stdout)).toEqual({ keys: [expect.objectContaining({ id, state: "active", usage: { minute: 0, day: 0 } })] })
    const revokeUnknown = await runCli(["keys", "revoke", "key_nope", ...store])
    expectOneLineFailure(revokeUnknown, /^animal-store: no key with id "key_nope"$/)
    Fs.rmSync(folder, { recursive: true, force: true })
  })

  it("a key banned by a running server shows as banned, with its usage; `keys unban` and `keys revoke` (other processes) take effect on the next request", async () => {
    const folder = temporaryFolder()
    const store = ["--store", `sqlite:${Path.join(folder, "data", "animal-store.db")}`]
    const serving = await startServe([...store, "--ban-after", "1"], {})
    const created = await runCli(["keys", "create", "--plan", "enterprise", "--per-minute", "1", "--per-day", "5", "--json", ...store])
    const { key: { id }, secret } = JSON.parse(created.stdout) as { key: { id: string }; secret: string }
    const listPets = () => fetch(`${serving.origin}/v1/pets`, { headers: { authorization: `Bearer ${secret}` } })
    const codeOf = async (reply: Response) => reply.status === 200 ? "ok" : ((await reply.json()) as { readonly code: string }).code
    expect((await listPets()).status).toBe(200)
    // refusal 1 is rate_limited, refusal 2 starts the ban (a new minute in between would accept one more)
    let code = ""
    for (let i = 0; i < 4 && code !== "api_key_banned"; i++) code = await codeOf(await listPets())
    expect(code).toBe("api_key_banned")
    const shown = await runCli(["keys", "show", id, "--json", ...store])
    expect(shown.code).toBe(0)
    const view = JSON.parse(shown.stdout) as { state: string; bannedUntil: string; usage: { day: number } }
    expect(view.state).toBe("banned")
    expect(Date.parse(view.bannedUntil)).toBeGreaterThan(Date.now() + 800_000)
    expect(view.usage.day).toBeGreaterThanOrEqual(1)
    expect((await runCli(["keys", "list", ...store])).stdout).toContain(`banned until ${view.bannedUntil}`)

    expect((await runCli(["keys", "unban", id, ...store])).stdout.trim()).toBe(`Lifted the ban of key ${id}.`)
    expect(await codeOf(await listPets())).not.toBe("api_key_banned")

    expect((await runCli(["keys", "revoke", id, ...store])).code).toBe(0)
    const reply = await listPets()
    expect(reply.status).toBe(401)
    expect(((await reply.json()) as { readonly code: string }).code).toBe("unauthorized")
    serving.child.kill("SIGTERM")
    expect((await serving.exited).code).toBe(0)
    Fs.rmSync(folder, { recursive: true, force: true })
  })

  it("a running server refuses an expired key saying so, a rotated key's old secret once its grace ends (`keys rotate` in another process), and every secret of a revoked key", async () => {
    const folder = temporaryFolder()
    const store = ["--store", `sqlite:${Path.join(folder, "data", "animal-store.db")}`]
    const serving = await startServe(store, {})
    const status = async (secret: string) => {
      const reply = await fetch(`${serving.origin}/v1/pets`, { headers: { authorization: `Bearer ${secret}` } })
      return reply.status === 200 ? 200 : `${reply.status} ${((await reply.json()) as { readonly message: string }).message}`
    }
    const expiring = JSON.parse((await runCli(["keys", "create", "--plan", "free", "--expires-in", "2s", "--json", ...store])).stdout) as {
      key: { id: string; expiresAt: string }
      secret: string
    }
    const created = JSON.parse((await runCli(["keys", "create", "--plan", "pro", "--window", "sliding", "--json", ...store])).stdout) as {
      key: { id: string; window: string }
      secret: string
    }
    expect(created.key.window).toBe("sliding")
    expect(await status(created.secret)).toBe(200)

    const rotated = await runCli(["keys", "rotate", created.key.id, "--grace", "1h", ...store])
    expect(rotated.code).toBe(0)
    const second = rotated.stdout.trim()
    expect(second).toMatch(/^ask_live_/)
    expect(rotated.stderr).toMatch(/the previous secret works until \d{4}-/)
    expect(await status(created.secret)).toBe(200)
    expect(await status(second)).toBe(200)
    const third = JSON.parse((await runCli(["keys", "rotate", created.key.id, "--grace", "0", "--json", ...store])).stdout) as {
      secret: string
    }
    expect(await status(created.secret)).toBe("401 The API key is invalid")
    expect(await status(second)).toBe("401 The API key is invalid")
    expect(await status(third.secret)).toBe(200)
    expect((await runCli(["keys", "revoke", created.key.id, ...store])).code).toBe(0)
    expect(await status(third.secret)).toBe("401 The API key is invalid")

    // The expiry, two seconds after it was created (a real clock: the shipped server has no other).
    while (Date.now() < Date.parse(expiring.key.expiresAt)) await new Promise((resolve) => setTimeout(resolve, 100))
    expect(await status(expiring.secret)).toBe("401 The API key has expired")
    const shown = JSON.parse((await runCli(["keys", "show", expiring.key.id, "--json", ...store])).stdout) as { state: string }
    expect(shown.state).toBe("expired")
    serving.child.kill("SIGTERM")
    expect((await serving.exited).code).toBe(0)
    Fs.rmSync(folder, { recursive: true, force: true })
  })

  it("serves with provisioned keys and a JSON access log, and on SIGTERM finishes requests in flight, closes the store and exits 0", async () => {
    const folder = temporaryFolder()
    const database = Path.join(folder, "data", "animal-store.db")
    const secret = "ask_live_provisionedkey000000"
    const serving = await startServe(["--store", `sqlite:${database}`], { ANIMAL_STORE_API_KEYS: `${secret}:pro` })
    const headers = { authorization: `Bearer ${secret}` }
    const created = await fetch(`${serving.origin}/v1/pets`, {
      method: "POST",
      headers: { ...headers, "content-type": "application/json" },
      body: JSON.stringify({ name: "Rex", categoryId: 1 })
    })
    expect(created.status).toBe(201)
    expect(created.headers.get("x-ratelimit-limit")).toBe("300")

    const inFlight = await halfSentPost(serving.origin, secret, JSON.stringify({ name: "Late", categoryId: 2 }))
    await new Promise((resolve) => setTimeout(resolve, 300))
    serving.child.kill("SIGTERM")
    await new Promise((resolve) => setTimeout(resolve, 300))
    expect(serving.child.exitCode).toBeNull()
    await expect(fetch(`${serving.origin}/v1/pets`, { headers })).rejects.toThrow()
    expect(await inFlight.finish()).toBe(201)
    const exited = await serving.exited
    expect(exited.code).toBe(0)

    const log = exited.stdout.split("\n").filter((line) => line.includes("http.request")).map((line) => JSON.parse(line))
    expect(log.map((entry) => [entry.annotations.method, entry.annotations.path, entry.annotations.status])).toEqual([
      ["POST", "/v1/pets", 201],
      ["POST", "/v1/pets", 201]
    ])
    expect(log[0].annotations.keyId).toMatch(/^key_/)
    expect(exited.stdout).not.toContain(secret)

    Fs.rmSync(folder, { recursive: true, force: true })
  })
})
