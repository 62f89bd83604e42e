import type { TestSpecification } from "vitest/node"
import { BaseSequencer } from "vitest/node"
import { defineConfig } from "vitest/config"

/** The slow property suites, run last: a mutant a quick test kills then costs little. */
const slowLast = ["PlanRateLimiter", "Ban", "GuardedPetOperations", "DeprecationPolicy", "ModelAccessStores"]

const rank = (spec: TestSpecification): number =>
  slowLast.findIndex((name) => spec.moduleId.endsWith(`/${name}.test.ts`))

class QuickFirst extends BaseSequencer {
  override async sort(files: Array<TestSpecification>): Promise<Array<TestSpecification>> {
    return [...files].sort((a, b) => rank(a) - rank(b) || a.moduleId.localeCompare(b.moduleId))
  }
}

// The tests Stryker runs against each mutant: core's own tests only (its rules are
// in core; the adapter and store tests are slow and would only repeat them).
// `pnpm mutation` uses it; `pnpm test` uses vitest.config.ts.
export default defineConfig({
  test: {
    include: ["packages/core/test/**/*.test.ts"],
    exclude: ["**/node_modules/**", "**/dist/**"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: "forks",
    sequence: { sequencer: QuickFirst }
  }
})
