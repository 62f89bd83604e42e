/**
 * The build of another commit for `pnpm bench --baseline <commit-ish>`: a git
 * worktree of that commit outside the repository (under the system's
 * temporary folder, named by the commit's hash), installed and built as a
 * user would (`pnpm install --frozen-lockfile --prefer-offline`, `pnpm
 * build`). A finished build is kept and reused by the next run of the same
 * commit; `git worktree remove <folder>` deletes it.
 */
import { execFileSync, spawnSync } from "node:child_process"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { bin, root } from "./serverProcess.js"

export interface Baseline {
  /** As given on the command line. */
  readonly commitish: string
  readonly commit: string
  /** The built checkout: its server is `<checkout>/packages/server/dist/cli/animal-store.js`. */
  readonly checkout: string
}

/** Where built baselines are kept, one folder per commit. */
export const cacheFolder = Path.join(Os.tmpdir(), "animal-store-bench-baselines")

const git = (args: ReadonlyArray<string>): string =>
  execFileSync("git", args, { cwd: root, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] }).trim()

/** Runs `command` in `cwd`, its output on stderr (stdout is the table's); throws when it fails. */
const run = (command: string, args: ReadonlyArray<string>, cwd: string, env: NodeJS.ProcessEnv = process.env) => {
  const result = spawnSync(command, args, { cwd, env, stdio: ["ignore", 2, 2] })
  if (result.error !== undefined) throw result.error
  if (result.status !== 0) throw new Error(`${command} ${args.join(" ")} failed in ${cwd} (exit ${result.status})`)
}

/** The commit `commitish` names in this repository; throws when it names none. */
export const resolveCommit = (commitish: string): string => {
  try {
    return git(["rev-parse", "--verify", "--end-of-options", `${commitish}^{commit}`])
  } catch {
    throw new Error(`--baseline ${commitish}: not a commit of this repository`)
  }
}

/** The commit of this checkout, with `-dirty` when it has changes not committed. */
export const todayCommit = (): string => {
  try {
    return git(["rev-parse", "HEAD"]) + (git(["status", "--porcelain", "--untracked-files=no"]) === "" ? "" : "-dirty")
  } catch {
    return "unknown"
  }
}

/** The newest modification time of the files under `folder`, skipping `node_modules` and `dist`. */
const newestUnder = (folder: string): number => {
  let newest = 0
  for (const entry of Fs.readdirSync(folder, { withFileTypes: true })) {
    if (entry.name === "node_modules" || entry.name === "dist") continue
    const path = Path.join(folder, entry.name)
    newest = Math.max(newest, entry.isDirectory() ? newestUnder(path) : Fs.statSync(path).mtimeMs)
  }
  return newest
}

/** Throws when this checkout's server is not built; warns when a package's source is newer than it. */
export const checkTodayBuilt = (log: (line: string) => void): void => {
  const built = Path.join(root, bin)
  if (!Fs.existsSync(built)) throw new Error(`${bin} is missing: run pnpm build first`)
  const packages = Path.join(root, "packages")
  const sources = Fs.readdirSync(packages).map((name) => Path.join(packages, name, "src")).filter((src) => Fs.existsSync(src))
  if (Math.max(...sources.map(newestUnder)) > Fs.statSync(built).mtimeMs) {
    log(`  warning: a source under packages/*/src is newer than ${bin}: run pnpm build to measure today's code`)
  }
}

/**
 * The built checkout of `commitish`: reused when an earlier run built it,
 * else made (a detached git worktree), installed and built.
 */
export const prepareBaseline = (commitish: string, log: (line: string) => void): Baseline => {
  const commit = resolveCommit(commitish)
  const checkout = Path.join(cacheFolder, commit)
  const marker = Path.join(checkout, ".bench-baseline-built")
  if (Fs.existsSync(marker) && Fs.existsSync(Path.join(checkout, bin))) {
    log(`Baseline ${commitish} (${commit.slice(0, 10)}): built earlier, in ${checkout}`)
    return { commitish, commit, checkout }
  }
  log(`Baseline ${commitish} (${commit.slice(0, 10)}): building in ${checkout}`)
  const started = performance.now()
  if (Fs.existsSync(checkout)) {
    // An earlier attempt that did not finish: start over.
    spawnSync("git", ["worktree", "remove", "--force", checkout], { cwd: root, stdio: "ignore" })
    Fs.rmSync(checkout, { recursive: true, force: true })
  }
  Fs.mkdirSync(cacheFolder, { recursive: true })
  // --force: the path may still be registered from a build whose folder was deleted since.
  run("git", ["worktree", "add", "--force", "--detach", checkout, commit], root)
  // better-sqlite3 may be compiled from source: node-gyp takes Node's headers from the system when they are there.
  const env = process.env.npm_config_nodedir === undefined && Fs.existsSync("/usr/include/node/node.h")
    ? { ...process.env, npm_config_nodedir: "/usr" }
    : process.env
  run("pnpm", ["install", "--frozen-lockfile", "--prefer-offline"], checkout, env)
  run("pnpm", ["build"], checkout, env)
  if (!Fs.existsSync(Path.join(checkout, bin))) throw new Error(`The build of ${commitish} made no ${bin}`)
  Fs.writeFileSync(marker, `${commit}\n${new Date().toISOString()}\n`)
  log(`  built in ${((performance.now() - started) / 1000).toFixed(0)} s`)
  return { commitish, commit, checkout }
}
