/**
 * Requests and log lines for the tests of store faults (FileReplaced, DiskFull) on a served SQLite file.
 */
import { expect } from "@effect/vitest"
import type { Serving } from "./CliProcess.js"

export const key = "ask_live_storefaultstest00001"

/** An enterprise key with limits no test reaches. */
export const env = { ANIMAL_STORE_API_KEYS: `${key}:enterprise:100000:1000000` }

const authorization = { authorization: `Bearer ${key}` }

export const createPet = (serving: Serving, name: string) =>
  fetch(`${serving.origin}/v1/pets`, {
    method: "POST",
    headers: { ...authorization, "content-type": "application/json" },
    body: JSON.stringify({ name, categoryId: 1 })
  })

export const get = (serving: Serving, path: string) => fetch(`${serving.origin}${path}`, { headers: authorization })

/** The names of every animal listed, in order (at most 100). */
export const names = async (serving: Serving): Promise<ReadonlyArray<string>> => {
  const response = await get(serving, "/v1/pets?limit=100")
  expect(response.status).toBe(200)
  return ((await response.json()) as ReadonlyArray<{ readonly name: string }>).map((pet) => pet.name)
}

/** Checks a refused write: 503 `service_unavailable` with `Retry-After` and an `Error` body. */
export const expectUnavailable = async (response: Response) => {
  expect(response.status).toBe(503)
  expect(Number(response.headers.get("retry-after"))).toBeGreaterThanOrEqual(1)
  expect(await response.json()).toEqual(expect.objectContaining({ code: "service_unavailable", status: 503 }))
}

/** The messages of the log lines at level `level` written so far that start with `prefix`. */
export const logged = (serving: Serving, level: "ERROR" | "INFO", prefix: string): ReadonlyArray<string> =>
  serving.stdout().split("\n").flatMap((line) => {
    if (!line.startsWith("{")) return []
    const parsed = JSON.parse(line) as { readonly message?: unknown; readonly logLevel?: unknown }
    return parsed.logLevel === level && typeof parsed.message === "string" && parsed.message.startsWith(prefix)
      ? [parsed.message]
      : []
  })

/** Polls `f` every 20 ms until it holds, for at most `millis`. */
export const eventually = async (f: () => boolean | Promise<boolean>, millis = 5_000): Promise<boolean> => {
  for (const deadline = Date.now() + millis; Date.now() < deadline;) {
    if (await f()) return true
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
  return f()
}

/** Stops a server with SIGTERM: its exit code. */
export const stop = async (serving: Serving): Promise<number | null> => {
  serving.child.kill("SIGTERM")
  return (await serving.exited).code
}
