import type { AnimalStore } from "@animal-store/core"
/**
 * Temporary database files and child processes for the SQLite store tests.
 */
import type { Scope } from "effect"
import { Effect, Layer } from "effect"
import * as ChildProcess from "node:child_process"
import { createRequire } from "node:module"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import * as Readline from "node:readline"
import { SqliteStore } from "../../src/index.js"

/** The repository root, where `node --import tsx` finds tsx. */
const repositoryRoot = Path.resolve(import.meta.dirname, "../../../..")

/** A new empty folder, removed with everything in it when the scope closes. */
export const tempFolder: Effect.Effect<string, never, Scope.Scope> = Effect.acquireRelease(
  Effect.sync(() => Fs.mkdtempSync(Path.join(Os.tmpdir(), "animal-store-sqlite-"))),
  (folder) => Effect.sync(() => Fs.rmSync(folder, { recursive: true, force: true }))
)

/** A path for a database file that does not exist yet, in a `tempFolder`. */
export const tempDatabase: Effect.Effect<string, never, Scope.Scope> = Effect.map(
  tempFolder,
  (folder) => Path.join(folder, "data", "store.db")
)

/** Every port on a new database file of its own at each build. */
export const freshFileLayer: Layer.Layer<AnimalStore.StorePorts, unknown> = Layer.unwrapScoped(
  Effect.map(tempDatabase, (filename) => SqliteStore.layer({ filename }))
)

/** Lets the event loop turn: a turn's group commit ends, and kept keys are checked again. */
export const nextTurn: Effect.Effect<void> = Effect.promise(() => new Promise<void>((resolve) => setImmediate(resolve)))

/** The database file and its WAL and shared-memory files, those that exist. */
export const databaseFiles = (filename: string): ReadonlyArray<string> =>
  [filename, `${filename}-wal`, `${filename}-shm`].filter((file) => Fs.existsSync(file))

/**
 * Runs `test/fixtures/<script>` in a new Node process (`node --import tsx`).
 */
export const spawnFixture = (
  script: string,
  args: ReadonlyArray<string>
): ChildProcess.ChildProcessWithoutNullStreams =>
  ChildProcess.spawn(
    process.execPath,
    ["--import", "tsx", Path.join(import.meta.dirname, "..", "fixtures", script), ...args],
    { cwd: repositoryRoot, stdio: "pipe" }
  )

/** The lines a child writes to its standard output, as they come. */
export const linesOf = (child: ChildProcess.ChildProcessWithoutNullStreams): AsyncIterableIterator<string> =>
  Readline.createInterface({ input: child.stdout, crlfDelay: Infinity })[Symbol.asyncIterator]()

/** Everything a child writes to standard error, for failure messages. */
export const collectStderr = (child: ChildProcess.ChildProcessWithoutNullStreams): { readonly text: () => string } => {
  const chunks: Array<string> = []
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => chunks.push(chunk))
  return { text: () => chunks.join("") }
}

/** Resolves with the exit code (or signal) of a child. */
export const exitOf = (
  child: ChildProcess.ChildProcess
): Promise<{ readonly code: number | null; readonly signal: NodeJS.Signals | null }> =>
  new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) {
      resolve({ code: child.exitCode, signal: child.signalCode })
    } else {
      child.once("exit", (code, signal) => resolve({ code, signal }))
    }
  })

/** The part of a better-sqlite3 connection the tests use. */
export interface RawDatabase {
  prepare(sql: string): { run(...params: ReadonlyArray<unknown>): unknown; get(...params: ReadonlyArray<unknown>): unknown }
  pragma(source: string): unknown
  exec(sql: string): unknown
  transaction(f: () => void): { immediate: () => void }
  close(): void
}

/** A connection of its own to `filename`, as another program would open it. */
export const open = (filename: string): RawDatabase => {
  const Database = createRequire(import.meta.url)("better-sqlite3") as new(filename: string) => RawDatabase
  return new Database(filename)
}
