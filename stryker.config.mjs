// @ts-check
/**
 * Mutation testing of core's rule modules with core's own tests: `pnpm mutation`.
 * Equivalent mutants (no test can tell them apart) are listed in stryker.equivalent.md.
 * @type {import("@stryker-mutator/api/core").PartialStrykerOptions}
 */
export default {
  packageManager: "pnpm",
  // Under pnpm the runner is not found by name: load it by path.
  plugins: ["./node_modules/@stryker-mutator/vitest-runner/dist/src/index.js"],
  testRunner: "vitest",
  vitest: { configFile: "vitest.stryker.config.ts" },
  coverageAnalysis: "perTest",
  concurrency: 2,
  timeoutMS: 30_000,
  mutate: [
    "packages/core/src/ListPetsQuery.ts",
    "packages/core/src/Pet.ts",
    "packages/core/src/PetInput.ts",
    "packages/core/src/internal/rateLimit.ts",
    "packages/core/src/internal/addressBucket.ts",
    "packages/core/src/internal/addressStates.ts",
    "packages/core/src/PlanRateLimiter.ts",
    "packages/core/src/DeprecationPolicy.ts",
    "packages/core/src/ApiKeyAuth.ts",
    "packages/core/src/GuardedPetOperations.ts",
    "packages/core/src/Idempotency.ts",
    "packages/core/src/PetOperations.ts",
    "packages/core/src/ApiError.ts",
    "packages/core/src/Plan.ts",
    "packages/core/src/ApiKey.ts",
    "packages/core/src/internal/schemas.ts",
    "packages/core/src/internal/decode.ts",
    "packages/core/src/internal/apiKeySecret.ts"
  ],
  // The sandbox needs only core and the root files: the other packages are not tested here.
  ignorePatterns: ["packages/http-adapter", "packages/memory-store", "packages/sqlite-store", "packages/postgres-store", "packages/server", "/test", "examples", "bench", "reports"],
  reporters: ["clear-text", "progress", "json", "html"],
  jsonReporter: { fileName: "reports/mutation/mutation.json" },
  htmlReporter: { fileName: "reports/mutation/mutation.html" },
  thresholds: { high: 95, low: 90, break: null },
  // Reruns test only the mutants whose code or tests changed since the last run
  // (`pnpm mutation --force` tests them all again).
  incremental: true,
  incrementalFile: "reports/stryker-incremental.json",
  tempDirName: ".stryker-tmp",
  cleanTempDir: true
}
