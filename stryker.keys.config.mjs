// @ts-check
/**
 * Mutation testing of issue 53's rules (sliding minute, expiry, rotation) with the tests of
 * those rules: `pnpm exec stryker run stryker.keys.config.mjs`.
 */
import base from "./stryker.config.mjs"

/** @type {import("@stryker-mutator/api/core").PartialStrykerOptions} */
export default {
  ...base,
  vitest: { configFile: "vitest.stryker.keys.config.ts" },
  // MUTATE=rules (the sliding minute in the rule) or MUTATE=keys (expiry and rotation); both by default.
  mutate: [
    ...(process.env.MUTATE === "keys" ? [] : [
      "packages/core/src/internal/slidingWindow.ts",
      "packages/core/src/internal/rateLimit.ts:59-81",
      "packages/core/src/internal/rateLimit.ts:132-141",
      "packages/core/src/internal/rateLimit.ts:170-182",
      "packages/core/src/internal/rateLimit.ts:194-194",
      "packages/core/src/PlanRateLimiter.ts:130-130"
    ]),
    ...(process.env.MUTATE === "rules" ? [] : [
      "packages/core/src/ApiKeyAuth.ts:112-140",
      "packages/core/src/ApiKeyAuth.ts:177-190",
      "packages/core/src/ApiKeyAuth.ts:250-260",
      "packages/core/src/KeyAdministration.ts:127-146"
    ])
  ],
  jsonReporter: { fileName: `reports/mutation-keys/${process.env.MUTATE ?? "all"}.json` },
  htmlReporter: { fileName: `reports/mutation-keys/${process.env.MUTATE ?? "all"}.html` },
  incremental: false,
  timeoutMS: 60_000,
  dryRunTimeoutMinutes: 30
}
