import * as Path from "node:path"
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "vitest"
import * as HeapPolicy from "../src/internal/heapPolicy.js"
import { cleanEnv, runNode } from "./support/CliProcess.js"

const churn = Path.resolve(Path.dirname(fileURLToPath(import.meta.url)), "support/heapChurn.mjs")

interface Churned {
  readonly maxYoung: number
  readonly maxOld: number
  readonly keptOld: number
  readonly youngAfterRelease: number
}

/** The heap sizes of a process that churns its heap, with the policy applied or not. */
const churned = async (policy: "on" | "off"): Promise<Churned> => {
  const finished = await runNode(["--expose-gc", churn, policy], { env: cleanEnv() })
  expect(finished.stderr).toBe("")
  expect(finished.code).toBe(0)
  return JSON.parse(finished.stdout) as Churned
}

describe("HeapPolicy (the heap sizing of `animal-store serve`)", () => {
  it("caps the young generation and keeps the old one near what it keeps alive, until released", async () => {
    const [on, off] = await Promise.all([churned("on"), churned("off")])
    // V8's own sizing goes past the policy's bounds under the same churn: so the bounds below fail without the policy.
    expect(off.maxYoung).toBeGreaterThan(HeapPolicy.youngGenerationCapBytes)
    expect(off.maxOld).toBeGreaterThan(2.5 * off.keptOld)

    expect(on.maxYoung).toBeLessThanOrEqual(HeapPolicy.youngGenerationCapBytes)
    expect(on.maxOld).toBeLessThan(2.5 * on.keptOld)
    expect(on.maxOld).toBeLessThan(0.6 * off.maxOld)
    // Released, V8's own growth is back.
    expect(on.youngAfterRelease).toBeGreaterThan(HeapPolicy.youngGenerationCapBytes)
  })
})
