import { defineConfig } from "vitest/config"

// Issue 53's mutation run (stryker.keys.config.mjs): the tests of the new rules only.
export default defineConfig({
  test: {
    include: process.env.MUTATE === "keys"
      ? [
        "packages/core/test/KeyLifecycle.test.ts",
        "packages/core/test/ApiKeyAuth.test.ts",
        "packages/core/test/KeyAdministration.test.ts"
      ]
      : process.env.MUTATE === "rules"
      ? ["packages/core/test/internal/slidingWindow.test.ts", "packages/core/test/SlidingWindow.test.ts"]
      : [
        "packages/core/test/internal/slidingWindow.test.ts",
        "packages/core/test/KeyLifecycle.test.ts",
        "packages/core/test/ApiKeyAuth.test.ts",
        "packages/core/test/KeyAdministration.test.ts",
        "packages/core/test/SlidingWindow.test.ts",
        "packages/core/test/PlanRateLimiter.test.ts"
      ],
    exclude: ["**/node_modules/**", "**/dist/**"],
    testTimeout: 120_000,
    hookTimeout: 60_000,
    pool: "forks"
  }
})
