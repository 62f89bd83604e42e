#!/usr/bin/env node
// Runs the CLI without a build step run by hand: the TypeScript sources and
// their dependencies are bundled with esbuild (tsx's own) into one cached
// file, rebuilt when any input changes (a bundle loads less code than the
// sources under tsx: about 100 MB less memory). If esbuild is unavailable,
// the sources run under tsx.
import * as Crypto from "node:crypto"
import * as Fs from "node:fs"
import { createRequire } from "node:module"
import * as Path from "node:path"
import { PerformanceObserver } from "node:perf_hooks"
import { fileURLToPath, pathToFileURL } from "node:url"
import * as V8 from "node:v8"

// The young generation grows to 16 MB, not V8's 32 MB (the README's
// "Memory"): once a scavenge has grown it that far, V8 is told to grow it no
// more (it reads this flag each time it would grow; its maximum is fixed at
// start, and a process cannot pass itself flags on Node 20).
const youngGenerationCap = 16 * 1024 * 1024
const capYoungGeneration = new PerformanceObserver(() => {
  const young = V8.getHeapSpaceStatistics().find((space) => space.space_name === "new_space")
  if (young === undefined || young.space_size >= youngGenerationCap) {
    V8.setFlagsFromString("--semi-space-growth-factor=1")
    capYoungGeneration.disconnect()
  }
})
capYoungGeneration.observe({ entryTypes: ["gc"] })

const here = Path.dirname(fileURLToPath(import.meta.url))
const packageRoot = Path.resolve(here, "..")
const entry = Path.join(packageRoot, "src/bin.ts")
const cacheDir = Path.join(packageRoot, "node_modules/.cache/animal-store")
const bundleFile = Path.join(cacheDir, "bin.mjs")
const inputsFile = Path.join(cacheDir, "inputs.json")
const self = fileURLToPath(import.meta.url)

const stamp = (file) => {
  const stat = Fs.statSync(file)
  return `${stat.size}:${stat.mtimeMs}`
}

const isFresh = () => {
  try {
    const inputs = JSON.parse(Fs.readFileSync(inputsFile, "utf8"))
    return Fs.existsSync(bundleFile) && Object.entries(inputs).every(([file, value]) => stamp(file) === value)
  } catch {
    return false
  }
}

const writeAtomically = (file, contents) => {
  const temporary = `${file}.${process.pid}.${Crypto.randomBytes(4).toString("hex")}`
  Fs.writeFileSync(temporary, contents)
  Fs.renameSync(temporary, file)
}

const bundle = async () => {
  const require = createRequire(import.meta.url)
  const esbuild = createRequire(require.resolve("tsx"))("esbuild")
  try {
    const result = await esbuild.build({
      entryPoints: [entry],
      absWorkingDir: packageRoot,
      bundle: true,
      platform: "node",
      format: "esm",
      target: "node20",
      external: ["better-sqlite3"],
      banner: { js: "import { createRequire as __createRequire } from \"node:module\"; const require = __createRequire(import.meta.url);" },
      metafile: true,
      write: false,
      logLevel: "silent"
    })
    Fs.mkdirSync(cacheDir, { recursive: true })
    writeAtomically(bundleFile, result.outputFiles[0].contents)
    const inputs = Object.fromEntries(
      [self, ...Object.keys(result.metafile.inputs).map((input) => Path.resolve(packageRoot, input))]
        .map((file) => [file, stamp(file)])
    )
    writeAtomically(inputsFile, JSON.stringify(inputs))
  } finally {
    await esbuild.stop?.()
  }
}

let bundled = isFresh()
if (!bundled) {
  try {
    await bundle()
    bundled = true
  } catch {
    bundled = false
  }
}
if (bundled) {
  await import(pathToFileURL(bundleFile).href)
} else {
  const { register } = await import("tsx/esm/api")
  register()
  await import("../src/bin.ts")
}
