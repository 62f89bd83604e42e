/**
 * The packages as a host meets them: each publishable package packed with
 * `pnpm pack`, the tarballs installed with npm into projects outside the
 * workspace (no pnpm, no tsx), and used there with plain node and tsc.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as ChildProcess from "node:child_process"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"

const root = Path.resolve(Path.dirname(fileURLToPath(import.meta.url)), "../..")
const hosts = Path.join(root, "test/packaging/hosts")
const packages = ["core", "memory-store", "sql-store", "sqlite-store", "postgres-store", "http-adapter", "server", "client"] as const
type Package = typeof packages[number]

interface Run {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
}

const run = (command: string, args: ReadonlyArray<string>, options: ChildProcess.SpawnOptions = {}) =>
  new Promise<Run>((resolve, reject) => {
    const child = ChildProcess.spawn(command, args, { ...options, env: { ...cleanEnv, ...options.env } })
    let stdout = ""
    let stderr = ""
    child.stdout?.on("data", (chunk) => (stdout += chunk))
    child.stderr?.on("data", (chunk) => (stderr += chunk))
    child.on("error", reject)
    child.on("close", (code) => resolve({ code, stdout, stderr }))
  })

const succeed = async (command: string, args: ReadonlyArray<string>, options: ChildProcess.SpawnOptions = {}) => {
  const result = await run(command, args, options)
  expect(result.code, `${command} ${args.join(" ")}\n${result.stdout}\n${result.stderr}`).toBe(0)
  return result.stdout
}

/**
 * The headers node-gyp builds better-sqlite3 against: those of the Node running the tests where they lie
 * beside it (`include/node`), whatever Node a machine's npmrc names (CI runs the suite on two).
 */
const nodedir = Path.dirname(Path.dirname(process.execPath))
const headers = Fs.existsSync(Path.join(nodedir, "include", "node", "node.h")) ? { npm_config_nodedir: nodedir } : {}

/** The environment without pnpm's and the workspace's traces, as a host's shell has it. */
const cleanEnv: Record<string, string> = {
  ...Object.fromEntries(
    Object.entries(process.env).filter((entry): entry is [string, string] =>
      entry[1] !== undefined && !/^(npm_|PNPM|pnpm_|NODE_OPTIONS|NODE_PATH|VITEST|ANIMAL_STORE_)/i.test(entry[0])
    )
  ),
  ...headers
}

const tsc = Path.join(root, "node_modules/typescript/bin/tsc")
const scratch = Fs.mkdtempSync(Path.join(Os.tmpdir(), "animal-store-packaging-"))
const tarballs = {} as Record<Package, string>

/** A new npm project in the scratch folder with `specs` installed (peers come with them, as npm does). */
const project = async (name: string, specs: ReadonlyArray<string>) => {
  const dir = Path.join(scratch, name)
  Fs.mkdirSync(dir)
  Fs.writeFileSync(Path.join(dir, "package.json"), JSON.stringify({ name, private: true, type: "module" }))
  for (const file of Fs.readdirSync(hosts)) Fs.copyFileSync(Path.join(hosts, file), Path.join(dir, file))
  await succeed("npm", ["install", "--no-audit", "--no-fund", "--loglevel=error", ...specs], { cwd: dir })
  return dir
}

const installed = (dir: string) =>
  succeed("npm", ["ls", "--all", "--parseable"], { cwd: dir }).then((out) =>
    out.split("\n").map((line) => Path.relative(dir, line)).filter((line) => line.startsWith("node_modules"))
  )

let lean = ""
let full = ""

beforeAll(async () => {
  const packs = Path.join(scratch, "packs")
  for (const name of packages) {
    const out = await succeed("pnpm", ["pack", "--pack-destination", packs], { cwd: Path.join(root, "packages", name), env: { ...process.env } as Record<string, string> })
    tarballs[name] = out.trim().split("\n").at(-1)!
  }
  ;[lean, full] = await Promise.all([
    project("lean", [tarballs.core, tarballs["memory-store"]]),
    project("full", [...Object.values(tarballs), "@types/node@20"])
  ])
  const [effectSnippet] = readmeEffect()
  const [facadeSnippet] = readmeFacade()
  if (effectSnippet !== undefined) Fs.writeFileSync(Path.join(full, "readme-host.ts"), effectSnippet)
  if (facadeSnippet !== undefined) Fs.writeFileSync(Path.join(full, "readme-facade.mjs"), facadeSnippet)
}, 600_000)

afterAll(() => Fs.rmSync(scratch, { recursive: true, force: true }))

/** The README's code blocks of `language` in its section `heading`. */
const readmeBlocks = (heading: string, language: string): ReadonlyArray<string> => {
  const readme = Fs.readFileSync(Path.join(root, "README.md"), "utf8")
  const start = readme.indexOf(`\n## ${heading}\n`)
  const end = readme.indexOf("\n## ", start + 1)
  const section = readme.slice(start, end === -1 ? undefined : end)
  return [...section.matchAll(new RegExp("```" + language + "\\n([^]*?)```", "g"))].map((match) => match[1]!)
}

/** The README's embedding examples, as written: the Effect host's (TypeScript) and the facade's. */
const readmeEffect = () => readmeBlocks("Embedding", "ts").filter((block) => block.includes("AnimalStore.layer"))
const readmeFacade = () => readmeBlocks("Embedding", "js").filter((block) => block.includes("AnimalStore.open"))

/** Whether a process of the group `pgid` is left. */
const alive = (pgid: number): boolean => {
  try {
    process.kill(-pgid, 0)
    return true
  } catch {
    return false
  }
}

/**
 * `npx animal-store serve` in the full project (as nobody when root: root writes through file
 * modes), in a process group of its own, once it listens.
 */
const npxServe = async () => {
  Fs.chmodSync(scratch, 0o755)
  const asUser = process.getuid?.() === 0 ? { uid: 65534, gid: 65534 } : {}
  const cache = Fs.mkdtempSync(Path.join(scratch, "npm-cache-"))
  Fs.chmodSync(cache, 0o755)
  if (asUser.uid !== undefined) Fs.chownSync(cache, asUser.uid, asUser.gid)
  const child = ChildProcess.spawn("npx", ["--no-install", "animal-store", "serve", "--port", "0", "--store", "memory"], {
    detached: true,
    cwd: full,
    env: { ...cleanEnv, HOME: cache, npm_config_cache: cache, npm_config_update_notifier: "false" },
    ...asUser
  })
  let output = ""
  child.stderr.on("data", (chunk) => (output += chunk))
  const origin = await new Promise<string>((resolve, reject) => {
    child.stdout.on("data", (chunk) => {
      output += chunk
      const match = /listening on (http:\/\/127\.0\.0\.1:\d+)\/v1/.exec(output)
      if (match) resolve(match[1]!)
    })
    child.on("close", () => reject(new Error(`serve exited: ${output}`)))
  })
  return { child, origin, output: () => output }
}

describe("the packed packages installed with npm outside the workspace", () => {
  it("ship built JavaScript, declarations and maps, not tests or build state", async () => {
    for (const name of packages) {
      const files = (await succeed("tar", ["-tzf", tarballs[name]])).split("\n")
      expect(files, name).toContain("package/dist/index.js")
      expect(files, name).toContain("package/dist/index.d.ts")
      expect(files, name).toContain("package/dist/index.d.ts.map")
      expect(files, name).toContain("package/dist/index.js.map")
      expect(files, name).toContain("package/LICENSE")
      expect(files.filter((file) => /\/test\/|tsbuildinfo|\.test\./.test(file)), name).toEqual([])
      const manifest = JSON.parse(await succeed("tar", ["-xzOf", tarballs[name], "package/package.json"]))
      expect(manifest.private, name).toBeUndefined()
      expect(JSON.stringify(manifest), name).not.toContain("workspace:")
      expect(manifest.peerDependencies.effect, name).toMatch(/^\^3\./)
      expect(manifest.dependencies?.effect, name).toBeUndefined()
    }
  })

  it("core + memory-store bring no test tools, no SQLite and no platform", async () => {
    const names = await installed(lean)
    expect(names).toContain("node_modules/effect")
    expect(names.filter((name) => /vitest|fast-check\/|better-sqlite3|@effect\/platform|tsx/.test(name))).toEqual([])
  })

  it("plain node runs the Promise facade on the memory store, from ESM and from CommonJS", async () => {
    expect(JSON.parse(await succeed("node", ["facade.mjs"], { cwd: lean }))).toEqual({
      pets: [{ id: 2, name: "Tom", categoryId: 2, status: "sold" }],
      refused: "400 invalid_request"
    })
    const { pet, found } = JSON.parse(await succeed("node", ["facade.cjs"], { cwd: lean }))
    expect(found).toEqual(pet)
    expect(pet).toEqual({ id: 1, name: "Rex", categoryId: 1, status: "available" })
  })

  it("plain node runs the Promise facade on the SQLite store", async () => {
    const out = await succeed("node", ["facade.mjs", Path.join(full, "pets.db")], { cwd: full })
    expect(JSON.parse(out).pets).toEqual([{ id: 2, name: "Tom", categoryId: 2, status: "sold" }])
    expect(Fs.existsSync(Path.join(full, "pets.db"))).toBe(true)
  })

  it("a host node:http server mounts the adapter with no store but the one it chose", async () => {
    const dir = await project("http-host", [tarballs.core, tarballs["memory-store"], tarballs["http-adapter"]])
    const names = await installed(dir)
    expect(names.filter((name) => /sqlite|@animal-store\/server|platform-node/.test(name))).toEqual([])
    expect(JSON.parse(await succeed("node", ["http-host.mjs"], { cwd: dir }))).toEqual({
      created: 201,
      location: "/v1/pets/1",
      listed: [{ id: 1, name: "Rex", categoryId: 1, status: "available" }],
      remaining: "58",
      own: "host page"
    })
  }, 300_000)

  it("a host without Effect calls a running server with the client alone (ESM and CommonJS)", async () => {
    const dir = await project("client-host", [tarballs.core, tarballs["http-adapter"], tarballs.client])
    const names = await installed(dir)
    expect(names.filter((name) => /sqlite|@animal-store\/(server|memory-store)|platform-node|better-sqlite3/.test(name))).toEqual([])
    const key = "ask_live_clienthost0000000000000"
    const server = ChildProcess.spawn(process.execPath, [Path.join(root, "packages/server/dist/cli/animal-store.js"), "serve", "--port", "0", "--store", "memory"], {
      env: { ...cleanEnv, ANIMAL_STORE_API_KEYS: `${key}:pro` }
    })
    try {
      const origin = await new Promise<string>((resolve, reject) => {
        let output = ""
        server.stdout.on("data", (chunk) => {
          output += chunk
          const match = /listening on (http:\/\/127\.0\.0\.1:\d+)\/v1/.exec(output)
          if (match) resolve(match[1]!)
        })
        server.on("close", () => reject(new Error(`serve exited: ${output}`)))
      })
      const env = { STORE_URL: `${origin}/v1`, STORE_KEY: key }
      const lines = (await succeed("node", ["client-host.mjs"], { cwd: dir, env })).trim().split("\n")
      expect(lines.filter((line) => line.includes("getPet is deprecated"))).toHaveLength(1)
      expect(JSON.parse(lines.at(-1)!)).toEqual({
        created: 1,
        all: ["Rex", "Tom"],
        fetched: "Rex",
        missing: true,
        notices: ["/v1/pets"]
      })
      expect(JSON.parse(await succeed("node", ["client-host.cjs"], { cwd: dir, env }))).toEqual(["Rex", "Tom"])
    } finally {
      const closed = new Promise((resolve) => server.once("close", resolve))
      server.kill("SIGTERM")
      await closed
    }
  }, 300_000)

  it("a TypeScript host type-checks against the shipped declarations (strict, nodenext and bundler)", async () => {
    const compilerOptions = {
      strict: true,
      exactOptionalPropertyTypes: true,
      skipLibCheck: false,
      target: "ES2022",
      types: ["node"],
      outDir: "out"
    }
    for (const [name, resolution] of [["nodenext", { module: "nodenext", moduleResolution: "nodenext" }], ["bundler", { module: "esnext", moduleResolution: "bundler", noEmit: true }]] as const) {
      Fs.writeFileSync(Path.join(full, `tsconfig.${name}.json`), JSON.stringify({ compilerOptions: { ...compilerOptions, ...resolution }, files: ["effect-host.ts", "readme-host.ts"] }))
      await succeed("node", [tsc, "-p", `tsconfig.${name}.json`], { cwd: full })
    }
  }, 300_000) // two strict compilations of every shipped declaration, pg and @effect/sql-pg included: over a minute on a loaded 2-core machine

  it("an Effect host composes the layers with its own effect, of which there is one copy", async () => {
    expect(JSON.parse(await succeed("node", ["out/effect-host.js"], { cwd: full }))).toEqual([
      { id: 1, name: "Rex", categoryId: 1, status: "available" }
    ])
    const copies = (await installed(full)).filter((name) => name.endsWith("node_modules/effect"))
    expect(copies).toEqual(["node_modules/effect"])
    const lock = JSON.parse(Fs.readFileSync(Path.join(full, "package-lock.json"), "utf8"))
    for (const name of packages) expect(lock.packages[`node_modules/@animal-store/${name}`].resolved, name).toMatch(/^file:/)
  })

  it("the README's embedding examples type-check (above) and run as written", async () => {
    expect(readmeEffect()).toHaveLength(1)
    expect(readmeFacade()).toHaveLength(1)
    for (const [file, expected] of [["out/readme-host.js", "name: 'Rex'"], ["readme-facade.mjs", ""]] as const) {
      const cwd = Fs.mkdtempSync(Path.join(scratch, "readme-"))
      const out = await succeed("node", [Path.join(full, file)], { cwd })
      expect(out).toContain(expected)
      // the examples' SQLite file, where they say
      expect(Fs.existsSync(Path.join(cwd, "data/app.db")), file).toBe(true)
    }
  })

  it("`npx animal-store serve` answers from a read-only install", async () => {
    await succeed("chmod", ["-R", "a-w,a+rX", Path.join(full, "node_modules")])
    const { child, origin } = await npxServe()
    try {
      const response = await fetch(`${origin}/v1/openapi.json`)
      expect(response.status).toBe(200)
      expect(((await response.json()) as { info: { version: string } }).info.version).toBe("1.0.0")
    } finally {
      const closed = new Promise((resolve) => child.once("close", resolve))
      process.kill(-child.pid!, "SIGTERM")
      await closed
    }
  })

  it("`npx animal-store serve` stops when npx alone gets SIGTERM", async () => {
    const { child, origin, output } = await npxServe()
    const group = child.pid!
    try {
      const closed = new Promise((resolve) => child.once("close", resolve))
      process.kill(child.pid!, "SIGTERM")
      await closed
      // every process npx started (the server's supervisor and its worker) ends, and the port closes
      await expect.poll(() => alive(group), { timeout: 60_000, interval: 200 }).toBe(false)
      await expect(fetch(`${origin}/v1/openapi.json`)).rejects.toThrow()
      expect(output()).toContain("the package runner that started the server exited: shutting down")
    } finally {
      if (alive(group)) process.kill(-group, "SIGKILL")
    }
  }, 120_000)
  it("each package passes `npm publish --dry-run`", async () => {
    for (const name of packages) {
      const { code, stderr } = await run("npm", ["publish", "--dry-run", tarballs[name]], { cwd: scratch })
      expect(code, stderr).toBe(0)
    }
  })
})
