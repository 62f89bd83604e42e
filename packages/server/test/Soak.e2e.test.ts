import { describe, expect, it } from "@effect/vitest"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"
import { cleanEnv, runNode } from "./support/CliProcess.js"

const packageDir = Path.resolve(Path.dirname(fileURLToPath(import.meta.url)), "..")
const seconds = Number(process.env["SOAK_SECONDS"] ?? 20)

/** Runs `scripts/soak.ts` as `pnpm soak` does, to its end. */
const runSoak = () =>
  runNode(["--import", "tsx", "scripts/soak.ts", "--seconds", String(seconds)], { env: cleanEnv(), cwd: packageDir })

describe("sustained load", () => {
  it(`serves a steady mix for ${seconds} s without an error, growth, or a lost animal`, async () => {
    const { code, stderr, stdout } = await runSoak()
    expect(code, stdout + stderr).toBe(0)
    const summary = JSON.parse(/^SOAK_SUMMARY (.*)$/m.exec(stdout)![1]!)
    expect(summary.failures).toEqual([])
    expect(summary.errors).toBe(0)
    expect(summary.requests).toBeGreaterThanOrEqual(summary.rate * seconds * 0.99)
    for (const kind of ["list", "create", "get", "unauthorized"]) expect(summary.byKind[kind]).toBeGreaterThan(0)
    expect(summary.acknowledgedPets).toBe(summary.byKind.create)
    expect(summary.storedPets).toBe(summary.acknowledgedPets)
    expect(summary.missingPets).toBe(0)
    expect(summary.serverExitCode).toBe(0)
    expect(summary.slices).toHaveLength(Math.floor(seconds / 5))
  }, (seconds + 60) * 1_000)
})
