/**
 * Checkpoints a WAL off the event loop.
 *
 * SQLite's automatic checkpoint runs in the `COMMIT` that crosses
 * `walAutocheckpointPages`, on the connection's thread: it copies the WAL's
 * pages into the database file and syncs that file, and every request waits
 * (one took 70 ms here under load on the 401 path, every few seconds). The
 * checkpointer runs `PRAGMA wal_checkpoint(PASSIVE)` on a connection of its
 * own, in a worker thread, at most every `checkpointIntervalMillis` in which a
 * commit was `written`: it copies what the WAL holds while the store goes on
 * writing (a passive checkpoint never waits for a reader or the writer), so
 * the WAL stays short and the store's own automatic checkpoint, kept as a
 * fallback, finds nothing to do. Its connection uses the store's
 * `synchronous`, so a checkpoint syncs the database file as the store's
 * would.
 *
 * @internal
 */
import { Worker } from "node:worker_threads"
import type { Synchronous } from "../SqliteDatabase.js"
import { driverPath } from "./betterSqlite3.js"
import * as WhileWritten from "./whileWritten.js"

/** How often, at most, the WAL is checkpointed while commits come. */
export const checkpointIntervalMillis = 1_000

/** What `PRAGMA wal_checkpoint` tells: whether it was blocked, the WAL's frames, the frames now in the database file. */
export interface CheckpointResult {
  readonly busy: number
  readonly log: number
  readonly checkpointed: number
}

/** The running checkpointer of one database file. */
export interface WalCheckpointer {
  /** Tells that a commit wrote to the WAL: the next interval checkpoints it. */
  readonly written: () => void
  /** Checkpoints once, now; its result, or the error it met. */
  readonly checkpoint: () => Promise<CheckpointResult>
  /** Stops checkpointing: the worker closes its connection and ends. */
  readonly stop: () => Promise<void>
}

/** The worker: one connection, a passive checkpoint per message, closed on `null`. */
const workerSource = `
const { parentPort, workerData } = require("node:worker_threads")
const Database = require(workerData.driver)
const db = new Database(workerData.filename, { fileMustExist: true })
db.pragma("synchronous = " + workerData.synchronous)
parentPort.on("message", (message) => {
  if (message === null) {
    db.close()
    parentPort.close()
    return
  }
  try {
    const [result] = db.pragma("wal_checkpoint(PASSIVE)")
    parentPort.postMessage({ busy: result.busy, log: result.log, checkpointed: result.checkpointed })
  } catch (error) {
    parentPort.postMessage({ error: String(error) })
  }
})
`

/**
 * Starts checkpointing the WAL of the database file `filename` (which
 * exists), in a worker thread that does not keep the process alive.
 */
export const start = (
  filename: string,
  synchronous: Synchronous,
  intervalMillis: number = checkpointIntervalMillis
): WalCheckpointer => {
  const worker = new Worker(workerSource, {
    eval: true,
    workerData: { driver: driverPath, filename, synchronous }
  })
  worker.unref()
  const exited = new Promise<void>((resolve) => worker.once("exit", () => resolve()))
  // A worker that fails is gone: the store's own automatic checkpoint remains.
  worker.on("error", () => {})
  let stopped = false
  let running: Promise<CheckpointResult> | undefined
  const checkpoint = (): Promise<CheckpointResult> => {
    if (stopped) return Promise.reject(new Error("The checkpointer is stopped"))
    if (running !== undefined) return running
    running = new Promise<CheckpointResult>((resolve, reject) => {
      const onExit = () => reject(new Error("The checkpointer's worker ended"))
      worker.once("exit", onExit)
      worker.once("message", (result: CheckpointResult | { readonly error: string }) => {
        worker.off("exit", onExit)
        if ("error" in result) reject(new Error(result.error))
        else resolve(result)
      })
      worker.postMessage("checkpoint")
    }).finally(() => {
      running = undefined
    })
    return running
  }
  const schedule = WhileWritten.start(intervalMillis, () => {
    if (running !== undefined) return false
    checkpoint().catch(() => {})
    return true
  })
  return {
    written: schedule.written,
    checkpoint,
    stop: () => {
      if (!stopped) {
        stopped = true
        schedule.stop()
        // Kept alive until it has closed its connection, as a process exits with nothing else left to do.
        worker.ref()
        worker.postMessage(null)
      }
      return exited
    }
  }
}
