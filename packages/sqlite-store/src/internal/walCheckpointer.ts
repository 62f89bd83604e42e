/**
 * For speed only: the WAL checkpointed every second in a worker thread, off the event loop; SQLite's
 * own checkpoint, inside a `COMMIT`, held every request (70 ms under load; record 0004).
 *
 * @internal
 */
import { createRequire } from "node:module"
import { Worker } from "node:worker_threads"

/** WAL pages between the connection's own checkpoints, the fallback (SQLite's default: 1,000). */
export const autocheckpointPages = 4_000

/** The worker: a connection of its own, a passive checkpoint every interval, closed on any message. */
const workerSource = `
const { parentPort, workerData } = require("node:worker_threads")
const db = new (require(workerData.driver))(workerData.filename, { fileMustExist: true })
db.pragma("synchronous = " + workerData.synchronous)
const { accessSync, constants } = require("node:fs")
// Not while the -shm file refuses writing: a write to its mapping would kill the process (SIGBUS).
const shmWritable = () => {
  try { accessSync(workerData.filename + "-shm", constants.W_OK); return true } catch (error) { return error.code !== "EPERM" }
}
const timer = setInterval(() => {
  try { if (shmWritable()) db.pragma("wal_checkpoint(PASSIVE)") } catch {}
}, workerData.intervalMillis)
parentPort.once("message", () => {
  clearInterval(timer)
  db.close()
  parentPort.close()
})
`

/**
 * Checkpoints the WAL of the existing file `filename` every `intervalMillis`, in a worker thread that
 * does not keep the process alive. Answers `stop`: resolved once the worker has closed its connection.
 */
export const start = (
  filename: string,
  synchronous: "NORMAL" | "FULL",
  intervalMillis = 1_000
): () => Promise<void> => {
  const driver = createRequire(import.meta.url).resolve("better-sqlite3")
  const worker = new Worker(workerSource, { eval: true, workerData: { driver, filename, synchronous, intervalMillis } })
  worker.unref()
  // A worker that fails is gone: the connection's own automatic checkpoint remains.
  worker.on("error", () => {})
  const exited = new Promise<void>((resolve) => worker.once("exit", () => resolve()))
  let stopped = false
  return () => {
    if (!stopped) {
      stopped = true
      // Kept alive until it has closed its connection, as a process exits with nothing else left to do.
      worker.ref()
      worker.postMessage(null)
    }
    return exited
  }
}
