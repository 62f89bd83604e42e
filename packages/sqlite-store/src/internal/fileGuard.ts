/**
 * The store's write faults (decisions.md "Faults"; record 0033): its files replaced or gone, not
 * writable, or the disk full. Writes are refused (503) while a fault lasts, each fault is logged once,
 * and it ends by itself; the files are looked at once a second and before each commit is acknowledged.
 *
 * @internal
 */
import { StoreError } from "@animal-store/core"
import { Effect, Runtime } from "effect"
import type { Scope } from "effect"
import * as Fs from "node:fs"
import * as Path from "node:path"

/** How often the files are looked at without writes. */
export const intervalMillis = 1_000

/** The code, along a `StoreError`'s causes, of writes refused because the files changed. */
export const filesChangedCode = "SQLITE_STORE_FILES_CHANGED"

/**
 * For speed only (record 0070): how long the `-shm` file's look serves the uses after it; one look
 * per use cost a system call, about 5 µs, for each of a request's port calls.
 */
const shmLookMillis = 1

/** Free space below which an I/O error of a write is taken for a full disk. */
const lowSpaceBytes = 1024 * 1024

/** Free space that must return, over what was free when the disk was found full, to end the fault without a write. */
const returnedSpaceBytes = 256 * 1024

/** @internal */
export interface FileGuard {
  /** Fails while the files are not the ones opened (looked at now) or the disk is full: for readiness. */
  readonly check: Effect.Effect<void, StoreError.StoreError>
  /**
   * Looks at the `-shm` file before the store's statements would write to its mapping (at most once a
   * millisecond): the error that refuses them when it was made unwritable (the write would kill the process, SIGBUS).
   */
  readonly beforeUse: () => StoreError.StoreError | undefined
  /** Looks at the files now: the error that refuses the commit about to be acknowledged, if they changed. */
  readonly beforeCommit: () => StoreError.StoreError | undefined
  /** Before writes are held for a later commit: refused while the files are known changed or the disk full (looked at again then). */
  readonly beforeHolding: () => StoreError.StoreError | undefined
  /** A write failed with `error`: notes a full disk. */
  readonly failed: (error: StoreError.StoreError) => void
  /** A write transaction committed: a full disk has room again. */
  readonly committed: () => void
}

/** Whether a write failed with a fault of the files (changed, full disk, I/O error), as opposed to a lock or a closed store. */
export const isWriteFault = (error: StoreError.StoreError): boolean =>
  StoreError.codeAlongCauses(error, (code) => code === filesChangedCode || /^SQLITE_(FULL|IOERR)/.test(code)) !==
    undefined

const none: FileGuard = {
  check: Effect.void,
  beforeUse: () => undefined,
  beforeCommit: () => undefined,
  beforeHolding: () => undefined,
  failed: () => {},
  committed: () => {}
}

/** The guards of the clients `client.ts` opened on a file. */
const guards = new WeakMap<object, FileGuard>()

/** Makes `guard` the guard of `client`. */
export const register = (client: object, guard: FileGuard): void => {
  guards.set(client, guard)
}

/** The guard of `client` (one that never refuses when the client was not opened on a file by this package). */
export const forClient = (client: object): FileGuard => guards.get(client) ?? none

interface Identity {
  readonly dev: number
  readonly ino: number
}

/** The device and inode at `path`; `undefined` when nothing is there. Throws when it cannot be looked at. */
const identityAt = (path: string): Identity | undefined => {
  const stat = Fs.statSync(path, { throwIfNoEntry: false })
  return stat === undefined ? undefined : { dev: stat.dev, ino: stat.ino }
}

const same = (a: Identity, b: Identity | undefined): boolean => b !== undefined && a.dev === b.dev && a.ino === b.ino

const freeBytes = (folder: string): number | undefined => {
  try {
    const stat = Fs.statfsSync(folder)
    return stat.bavail * stat.bsize
  } catch {
    return undefined
  }
}

class FilesChanged extends Error {
  readonly code = filesChangedCode
}

class DiskFull extends Error {
  readonly code = "SQLITE_FULL"
}

/**
 * Whether the `-shm` file of `filename`, when there, can be opened for
 * writing: SQLite maps it, and a mapping that cannot be written kills the
 * process (SIGBUS) at its first write.
 */
export const shmProblem = (filename: string): string | undefined => {
  const shm = `${filename}-shm`
  try {
    Fs.closeSync(Fs.openSync(shm, Fs.constants.O_RDWR))
    return undefined
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code === "ENOENT") return undefined
    return `the shared-memory file "${shm}" of the SQLite database cannot be written (${code}): ` +
      `make it writable (chattr -i, chmod u+w) or remove it while no process uses the database`
  }
}

/**
 * Guards the database file `filename` (an absolute path), just opened: its
 * identity and its WAL's are taken now (the WAL's when first seen). Faults
 * are logged with the logger of the caller.
 */
export const make = (filename: string): Effect.Effect<FileGuard, never, Scope.Scope> =>
  Effect.gen(function*() {
    const runSync = Runtime.runSync(yield* Effect.runtime<never>())
    const walPath = `${filename}-wal`
    const shmPath = `${filename}-shm`
    const folder = Path.dirname(filename)
    const database = identityAt(filename)
    let wal = identityAt(walPath)
    /** What is wrong with the files, while something is. */
    let changed: string | undefined
    /** While the disk is full: the free space when it was found full. */
    let full: { readonly free: number } | undefined

    /** Whether the `-shm` file was made immutable: looked at once a second, by `check`, and before use. */
    let shmUnwritable = false
    /** When `beforeUse` last looked at the `-shm` file (`performance.now()`). */
    let shmLookedAt = -Infinity

    /** What is wrong with the database file or its WAL now. */
    const look = (): string | undefined => {
      try {
        if (database === undefined || !same(database, identityAt(filename))) {
          return `the database file "${filename}" is no longer the file the store opened (deleted, replaced or moved)`
        }
        const now = identityAt(walPath)
        if (wal === undefined) wal = now
        else if (!same(wal, now)) {
          return `the WAL file "${walPath}" is no longer the file the store opened (deleted, replaced or moved)`
        }
        return undefined
      } catch (error) {
        return `the files of the database "${filename}" cannot be looked at (${(error as NodeJS.ErrnoException).code})`
      }
    }

    /** Which of the database file, its WAL and `-shm` refuses writing (immutable, or read-only for this user): looked at with the `-shm`. */
    let unwritable: string | undefined

    const refresh = (shm: boolean): void => {
      // While a file refuses writing, every look (each commit's too) looks at it again: writes come back at once.
      if (shm || unwritable !== undefined) unwritable = [filename, walPath, shmPath].find(refusesWriting)
      if (shm) shmUnwritable = isImmutable(shmPath)
      const problem = look() ??
        (shmUnwritable ? `the shared-memory file "${shmPath}" was made unwritable` : undefined) ??
        (unwritable === undefined ? undefined : `the file "${unwritable}" cannot be written (immutable or read-only)`)
      if (problem !== undefined && changed === undefined) {
        runSync(Effect.logError(`SQLite store: writes refused until the file is restored or the server restarts: ${problem}`))
      } else if (problem === undefined && changed !== undefined) {
        runSync(Effect.logInfo(`SQLite store: writes accepted again, the files of "${filename}" are back`))
      }
      changed = problem
      if (full !== undefined) roomAgain(false)
    }

    /** Ends a full disk once space has returned (or, after a commit, when there is room: a quota, a passing fault). */
    const roomAgain = (committed: boolean) => {
      const free = freeBytes(folder)
      if (free === undefined || (free < full!.free + returnedSpaceBytes && !(committed && free >= lowSpaceBytes))) return
      full = undefined
      runSync(Effect.logInfo(`SQLite store: writes accepted again, the disk of "${filename}" has room`))
    }

    const changedError = (problem: string) =>
      new StoreError.StoreError({
        reason: "Unavailable",
        message: `Writing: ${problem}; restore it, or restart the server`,
        cause: new FilesChanged(problem)
      })

    const fullError = () => {
      const problem = `the disk of "${filename}" is full`
      return new StoreError.StoreError({ reason: "Unavailable", message: `Writing: ${problem}`, cause: new DiskFull(problem) })
    }

    const timer = setInterval(() => refresh(true), intervalMillis)
    timer.unref()
    yield* Effect.addFinalizer(() => Effect.sync(() => clearInterval(timer)))

    return {
      check: Effect.suspend(() => {
        refresh(true)
        if (changed !== undefined) return Effect.fail(changedError(changed))
        if (full !== undefined) {
          return Effect.fail(fullError())
        }
        return Effect.void
      }),
      beforeUse: () => {
        const now = performance.now()
        if (now - shmLookedAt >= shmLookMillis) {
          shmLookedAt = now
          if (isImmutable(shmPath) !== shmUnwritable) refresh(true)
        }
        return shmUnwritable ? changedError(`the shared-memory file "${shmPath}" was made unwritable`) : undefined
      },
      beforeCommit: () => {
        refresh(false)
        return changed === undefined ? undefined : changedError(changed)
      },
      beforeHolding: () => {
        // The commit looks at the files before it is acknowledged; while a fault lasts, each holding looks too.
        if (changed !== undefined || full !== undefined || unwritable !== undefined) refresh(false)
        if (changed !== undefined) return changedError(changed)
        return full === undefined ? undefined : fullError()
      },
      failed: (error) => {
        if (full !== undefined || StoreError.isUnavailable(error) === false) return
        const code = StoreError.codeAlongCauses(error, (code) => code.startsWith("SQLITE_"))
        if (code === undefined || !/^SQLITE_(FULL|IOERR)/.test(code)) return
        // A file made unwritable fails writes with an I/O error: noted at once, not only at the next second.
        refresh(true)
        if (changed !== undefined) return
        const free = freeBytes(folder)
        if (code !== "SQLITE_FULL" && (free === undefined || free >= lowSpaceBytes)) return
        full = { free: free ?? 0 }
        runSync(Effect.logError(`SQLite store: writes fail until space returns: the disk of "${filename}" is full (${code})`))
      },
      committed: () => {
        if (full !== undefined) roomAgain(true)
      }
    }
  })

/** Why `path`, when there, refuses writing by this process (`EPERM`: immutable; `EACCES`: read-only for this user). */
const writeRefusal = (path: string): string | undefined => {
  try {
    Fs.accessSync(path, Fs.constants.W_OK)
    return undefined
  } catch (error) {
    return (error as NodeJS.ErrnoException).code
  }
}

/** Whether `path` refuses writing by this process. */
const refusesWriting = (path: string): boolean => {
  const code = writeRefusal(path)
  return code === "EPERM" || code === "EACCES"
}

/** Whether `path` refuses writing for everyone, root included (the immutable flag). */
const isImmutable = (path: string): boolean => writeRefusal(path) === "EPERM"
