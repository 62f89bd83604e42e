/**
 * Opening the store's `SqliteClient`: the folder of the file, the client
 * (retried while another process holds the new file locked), the pragmas,
 * and the guard of its files.
 *
 * @internal
 */
import { StoreError } from "@animal-store/core"
import * as Reactivity from "@effect/experimental/Reactivity"
import * as SqliteClient from "@effect/sql-sqlite-node/SqliteClient"
import type { Scope } from "effect"
import { Effect, Exit, Schedule, Scope as Scopes } from "effect"
import * as Fs from "node:fs"
import * as Path from "node:path"
import * as FileGuard from "./fileGuard.js"
import * as PreviousStore from "./previousStore.js"
import { fromCause, mapStoreError } from "./storeError.js"

/** What `SqliteStore.Options` holds. */
export interface Options {
  readonly filename: string
  readonly synchronous?: "NORMAL" | "FULL" | undefined
  readonly busyTimeout?: number | undefined
  readonly create?: boolean | undefined
}

const isFile = (filename: string) => filename !== ":memory:" && filename !== ""

// Not `mkdirSync(folder, { recursive: true })`: on Node 20 it loops forever
// when the parent exists but refuses the child (e.g. under /proc).
const ensureFolder = (folder: string): void => {
  const stat = Fs.statSync(folder, { throwIfNoEntry: false })
  if (stat !== undefined) {
    if (!stat.isDirectory()) throw new Error(`"${folder}" is not a folder`)
    return
  }
  const parent = Path.dirname(folder)
  if (parent !== folder) ensureFolder(parent)
  try {
    Fs.mkdirSync(folder)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error
  }
}

const createFolder = (filename: string) =>
  Effect.try({
    try: () => {
      if (isFile(filename)) ensureFolder(Path.dirname(Path.resolve(filename)))
    },
    catch: (cause) =>
      new StoreError.StoreError({
        reason: "Unavailable",
        message: `Cannot create the folder of the SQLite database "${filename}": ${
          cause instanceof Error ? cause.message : String(cause)
        }`,
        cause
      })
  })

/**
 * Refuses a database whose `-shm` file cannot be written: SQLite would map
 * it, and the first write to that mapping kills the process (SIGBUS).
 */
const writableShm = (filename: string) =>
  Effect.suspend(() => {
    const problem = FileGuard.shmProblem(Path.resolve(filename))
    return problem === undefined ? Effect.void : Effect.fail(
      new StoreError.StoreError({ reason: "ReadOnly", message: `Opening the SQLite database "${filename}": ${problem}` })
    )
  })

/** Opening is retried every 20 ms while refused as busy, as long as any statement waits: the busy timeout. */
const openRetryMillis = 20

const isBusy = (u: unknown): boolean => String((u as { readonly code?: unknown } | undefined)?.code).startsWith("SQLITE_BUSY")

/**
 * One attempt at opening the client, in a scope of its own, closed when the
 * attempt fails. better-sqlite3 throws when it cannot open the file or switch
 * it to WAL: a defect of `SqliteClient.make`, taken here as its failure.
 */
const attempt = (filename: string) =>
  Effect.flatMap(Scopes.make(), (scope) =>
    SqliteClient.make({ filename, prepareCacheSize: 1_000 }).pipe(
      Scopes.extend(scope),
      Effect.provide(Reactivity.layer),
      Effect.catchAllDefect(Effect.fail),
      Effect.onExit((exit) => Exit.isFailure(exit) ? Scopes.close(scope, exit) : Effect.void),
      Effect.map((client) => [scope, client] as const)
    ))

/**
 * Opens `options.filename` (`":memory:"`: a private in-memory database) with
 * WAL, `synchronous` and the busy timeout; closed when
 * the scope closes.
 *
 * @internal
 */
export const open = (options: Options): Effect.Effect<SqliteClient.SqliteClient, StoreError.StoreError, Scope.Scope> =>
  Effect.gen(function*() {
    const { busyTimeout = 5_000, filename, synchronous = "NORMAL" } = options
    const timeout = Math.max(0, Math.trunc(busyTimeout))
    yield* createFolder(filename)
    if (isFile(filename)) yield* writableShm(filename)
    yield* PreviousStore.check(filename, options.create === true)
    const [scope, client] = yield* attempt(filename).pipe(
      // Processes opening one new file at once: SQLite may refuse the switch
      // to WAL at once (SQLITE_BUSY without waiting, to avoid a deadlock).
      Effect.retry({ while: isBusy, schedule: Schedule.spaced(openRetryMillis), times: Math.ceil(timeout / openRetryMillis) }),
      Effect.mapError((cause) => fromCause(`Opening the SQLite database "${filename}"`, cause, "Unavailable"))
    )
    yield* Effect.addFinalizer((exit) => Scopes.close(scope, exit))
    yield* client.unsafe(`PRAGMA busy_timeout = ${timeout}`).pipe(
      Effect.zipRight(client.unsafe(`PRAGMA synchronous = ${synchronous === "FULL" ? "FULL" : "NORMAL"}`)),
      mapStoreError(`Opening the SQLite database "${filename}"`)
    )
    if (isFile(filename)) FileGuard.register(client, yield* FileGuard.make(Path.resolve(filename)))
    return client
  })
