import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as ClientError from "../src/ClientError.js"
import * as PromiseClient from "../src/PromiseClient.js"
import * as Server from "./support/Server.js"

describe("PromiseClient, for hosts without Effect", () => {
  it.scopedLive("calls the store with Promises, iterates every page and throws the typed errors", () =>
    Effect.gen(function*() {
      // The budget is read against the sliding minute: the calls run within one UTC minute.
      const intoMinute = Date.now() % 60_000
      if (intoMinute > 40_000) yield* Effect.sleep(60_000 - intoMinute + 50)
      const server = yield* Server.start()
      const client = PromiseClient.make({ baseUrl: server.baseUrl, apiKey: yield* server.issue("pro") })
      yield* Effect.addFinalizer(() => Effect.promise(() => client.close()))
      const result = yield* Effect.promise(async () => {
        const created = []
        for (let i = 0; i < 7; i++) created.push(await client.createPet({ name: `p${i}`, categoryId: 1 }))
        const seen = []
        for await (const pet of client.pets({ limit: 3 })) seen.push(pet.id)
        const caught = await client.getPet(999).catch((error: unknown) => error)
        return { created, seen, caught, first: await client.getPet(created[0]!.id), budget: await client.budget() }
      })
      expect(result.seen).toEqual(result.created.map((pet) => pet.id))
      expect(result.first).toEqual(result.created[0])
      expect(result.caught).toBeInstanceOf(ClientError.ResponseError)
      expect(result.caught).toBeInstanceOf(Error)
      expect(ClientError.isCode(result.caught, "not_found")).toBe(true)
      expect(result.budget.remaining).toBe(300 - 7 - 3 - 2)
    }))
})
