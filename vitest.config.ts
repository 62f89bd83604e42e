import * as Os from "node:os"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"
import { defineConfig } from "vitest/config"

const packages = Path.join(Path.dirname(fileURLToPath(import.meta.url)), "packages")

/** Inside the workspace the tests run the packages' TypeScript sources, not their built `dist`. */
const sources = [
  { find: /^@animal-store\/core\/test$/, replacement: Path.join(packages, "core/src/testing/index.ts") },
  { find: /^@animal-store\/http-adapter\/PetsApi$/, replacement: Path.join(packages, "http-adapter/src/PetsApi.ts") },
  { find: /^@animal-store\/sql-store\/(\w+)$/, replacement: Path.join(packages, "sql-store/src/$1.ts") },
  { find: /^@animal-store\/postgres-store\/PostgresUrl$/, replacement: Path.join(packages, "postgres-store/src/PostgresUrl.ts") },
  ...["core", "memory-store", "sql-store", "sqlite-store", "postgres-store", "http-adapter", "server", "client"].map((name) => ({
    find: new RegExp(`^@animal-store/${name}$`),
    replacement: Path.join(packages, name, "src/index.ts")
  }))
]

export default defineConfig({
  resolve: { alias: sources },
  test: {
    include: ["packages/*/test/**/*.test.ts", "examples/**/*.test.ts", "test/**/*.test.ts"],
    exclude: ["**/node_modules/**", "**/dist/**"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: "forks",
    // At least two files at a time: vitest's default (the cores but one) runs one at a time on a
    // 2-core CI machine, where most files wait on servers and processes (fresh clone's .ci/run: 14 -> 9 min).
    maxWorkers: Math.max(2, Os.availableParallelism() - 1),
    reporters: ["default", ["json", { outputFile: "test-results.json" }]]
  }
})
