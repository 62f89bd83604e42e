import { AccessConfig, ApiKeyAuth } from "@animal-store/core"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer, Redacted } from "effect"
import * as Fs from "node:fs"
import { SqliteStore } from "../src/index.js"
import { databaseFiles, tempDatabase } from "./internal/files.js"

/** The files of the database holding `text` (as UTF-8). */
const filesContaining = (filename: string, text: string): ReadonlyArray<string> =>
  databaseFiles(filename).filter((file) => Fs.readFileSync(file).includes(Buffer.from(text, "utf8")))

describe("SqliteApiKeyStore", () => {
  it.scoped("stores digests only: no issued secret is in the database, its WAL or shared-memory file", () =>
    Effect.gen(function*() {
      const filename = yield* tempDatabase
      const auth = Layer.provide(
        ApiKeyAuth.layer,
        Layer.merge(Layer.fresh(SqliteStore.layer({ filename })), AccessConfig.layer())
      )
      const scan = (secrets: ReadonlyArray<string>, digests: ReadonlyArray<string>) => {
        expect(databaseFiles(filename)).toContain(filename)
        for (const secret of secrets) {
          expect(filesContaining(filename, secret)).toEqual([])
          expect(filesContaining(filename, secret.slice("ask_live_".length))).toEqual([])
        }
        // The scan does find what is stored.
        for (const digest of digests) expect(filesContaining(filename, digest).length).toBeGreaterThan(0)
      }

      const { digests, secrets } = yield* Effect.gen(function*() {
        const keys = yield* ApiKeyAuth.ApiKeyAuth
        const issued = [
          yield* keys.issue({ plan: "free" }),
          yield* keys.issue({ plan: "business", environment: "staging" }),
          yield* keys.issue({ plan: "enterprise", limits: { perMinute: 5, perDay: 50 } })
        ]
        const provisioned = Redacted.make("ask_live_provisioned_secret_0123456789")
        const key = yield* keys.provision(provisioned, { plan: "pro" })
        const secrets = [...issued.map((issued) => Redacted.value(issued.secret)), Redacted.value(provisioned)]
        const digests = [...issued.map((issued) => issued.key.digest), key.digest]
        expect(new Set(digests).size).toBe(4)
        // While the store is open, the latest writes are in the WAL.
        scan(secrets, digests)
        return { secrets, digests }
      }).pipe(Effect.provide(auth))
      // Closed: the WAL was checkpointed into the database file.
      scan(secrets, digests)
    }))
})
