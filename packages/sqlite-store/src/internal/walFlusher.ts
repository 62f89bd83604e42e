/**
 * Keeps a WAL file flushed to the disk in the background.
 *
 * With `synchronous = NORMAL` a commit is not flushed (it is in the
 * operating system's file cache, which survives `kill -9`); SQLite flushes
 * the whole WAL when it next checkpoints (the checkpointer's worker thread,
 * or, as a fallback, inside the `COMMIT` that crosses `walAutocheckpointPages`,
 * on the event loop): with 4,000 frames (16 MB) written since the last one,
 * that flush alone took about 55 ms here. `fdatasync` of the file every
 * `flushIntervalMillis`, in libuv's thread pool, leaves the checkpoint only
 * the frames of the last interval to flush. It adds no write (the frames go
 * to the disk at the checkpoint anyway) and makes no commit less durable.
 *
 * @internal
 */
import * as Fs from "node:fs"
import * as WhileWritten from "./whileWritten.js"

/** How often the WAL is flushed. */
export const flushIntervalMillis = 100

/** The running flusher of one WAL file. */
export interface WalFlusher {
  /** Tells that a commit wrote to the WAL: the next interval flushes it. */
  readonly written: () => void
  /** Flushes once, now (in the thread pool); `done` is called when it has (at once when it cannot). */
  readonly flush: (done?: () => void) => void
  /** Stops flushing and closes the file: at once, or when the flush running ends. */
  readonly stop: () => void
  /** Whether the file is open (it is opened once SQLite has created it). */
  readonly isOpen: () => boolean
}

/**
 * Starts flushing the WAL file `walPath` every `intervalMillis` in which a
 * commit was `written`. The file is opened (read-only) once it exists; the
 * timer does not keep the process alive.
 */
export const start = (walPath: string, intervalMillis: number = flushIntervalMillis): WalFlusher => {
  let fd: number | undefined
  let running = false
  let stopped = false
  const close = () => {
    if (fd === undefined) return
    const open = fd
    fd = undefined
    Fs.closeSync(open)
  }
  /** Starts a flush, `done` called when it has ended; `false`, calling `done` at once, when none can start. */
  const started = (done?: () => void): boolean => {
    if (stopped || running) {
      done?.()
      return false
    }
    if (fd === undefined) {
      try {
        fd = Fs.openSync(walPath, "r")
      } catch {
        done?.()
        return false
      }
    }
    running = true
    Fs.fdatasync(fd, () => {
      running = false
      if (stopped) close()
      done?.()
    })
    return true
  }
  const schedule = WhileWritten.start(intervalMillis, () => started())
  return {
    written: schedule.written,
    flush: (done) => {
      started(done)
    },
    stop: () => {
      if (stopped) return
      stopped = true
      schedule.stop()
      if (!running) close()
    },
    isOpen: () => fd !== undefined
  }
}
