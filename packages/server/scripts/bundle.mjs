// Bundles the `animal-store` executable at build time: the CLI and what it
// imports (the other packages, effect, @effect/*) in one ES module, so the
// command starts in about 0.4 s and 70 MB instead of loading some thousand
// modules one by one (1.2 s, 120 MB). better-sqlite3 (a native addon) stays
// a dependency; the reference page (3 MB of script) is a chunk loaded on
// first use. The supervisor of `serve` is a bundle of its own, with only the
// part of effect it uses: shared chunks would load all of effect into it.
// Nothing is bundled at run time.
import * as esbuild from "esbuild"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"

const packageRoot = Path.resolve(Path.dirname(fileURLToPath(import.meta.url)), "..")

// The chunks are named by their hash: the previous build's would stay beside
// the new ones, and be packed with them.
Fs.rmSync(Path.join(packageRoot, "dist/cli"), { recursive: true, force: true })

const common = {
  absWorkingDir: packageRoot,
  outdir: "dist/cli",
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  banner: { js: "import { createRequire as __createRequire } from \"node:module\"; const require = __createRequire(import.meta.url);" },
  logLevel: "warning"
}

await esbuild.build({ ...common, entryPoints: { supervisor: "dist/Supervisor.js" } })

/** The bin's import of the supervisor, left to the bundle above. */
const supervisorApart = {
  name: "supervisor-apart",
  setup: (build) =>
    build.onResolve({ filter: /^\.\/Supervisor\.js$/ }, (args) =>
      args.importer.endsWith(`${Path.sep}bin.js`) ? { path: "./supervisor.js", external: true } : undefined)
}

await esbuild.build({
  absWorkingDir: packageRoot,
  plugins: [supervisorApart],
  entryPoints: { "animal-store": "dist/bin.js" },
  outdir: "dist/cli",
  bundle: true,
  splitting: true,
  platform: "node",
  format: "esm",
  target: "node20",
  // pg-native: the optional native driver of pg, never used (pg's JavaScript driver is).
  external: ["better-sqlite3", "pg-native"],
  banner: { js: "import { createRequire as __createRequire } from \"node:module\"; const require = __createRequire(import.meta.url);" },
  chunkNames: "chunks/[name]-[hash]",
  logLevel: "warning"
})
