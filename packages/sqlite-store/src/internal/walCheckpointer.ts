/**
 * Checkpoints the WAL of a database file off the event loop, in a worker
 * thread with a connection of its own, every second.
 * SQLite's automatic checkpoint runs inside the `COMMIT` that crosses
 * `autocheckpointPages`, on the event loop, and every request waits for it
 * (70 ms under load here); it stays as the fallback.
 *
 * @internal
 */
import { createRequire } from "node:module"
import { Worker } from "node:worker_threads"

/** Where better-sqlite3 is, for the worker thread to load it. */
const driverPath: string = createRequire(import.meta.url).resolve("better-sqlite3")

/** WAL pages between the connection's own checkpoints (SQLite's default: 1,000). */
export const autocheckpointPages = 4_000

/** How often the WAL is checkpointed. */
export const checkpointIntervalMillis = 1_000

/** What `PRAGMA wal_checkpoint` tells: whether it was blocked, the WAL's frames, the frames now in the database file. */
export interface CheckpointResult {
  readonly busy: number
  readonly log: number
  readonly checkpointed: number
}

/** The running checkpointer of one database file. */
export interface WalCheckpointer {
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
 * exists) every `intervalMillis`, in a worker thread that does not keep the
 * process alive.
 */
export const start = (
  filename: string,
  synchronous: "NORMAL" | "FULL",
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
  const timer = setInterval(() => {
    if (running === undefined) checkpoint().catch(() => {})
  }, intervalMillis)
  timer.unref()
  return {
    checkpoint,
    stop: () => {
      if (!stopped) {
        stopped = true
        clearInterval(timer)
        // Kept alive until it has closed its connection, as a process exits with nothing else left to do.
        worker.ref()
        worker.postMessage(null)
      }
      return exited
    }
  }
}
