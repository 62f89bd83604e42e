import { defineConfig } from "vitest/config"

// The tests Stryker runs against each mutant: core's own tests only (its rules are
// in core; the adapter and store tests are slow and would only repeat them).
// `pnpm mutation` uses it; `pnpm test` uses vitest.config.ts.
export default defineConfig({
  test: {
    include: ["packages/core/test/**/*.test.ts"],
    exclude: ["**/node_modules/**", "**/dist/**"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: "forks"
  }
})
