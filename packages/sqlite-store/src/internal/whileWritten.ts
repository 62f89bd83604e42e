/**
 * A task run in the background at most once an interval, in the intervals
 * in which a commit was written: the WAL flusher's and the checkpointer's.
 *
 * @internal
 */

/** The schedule of one task. */
export interface WhileWritten {
  /** Tells that a commit wrote to the WAL: the next interval runs the task. */
  readonly written: () => void
  /** Runs the task no more. */
  readonly stop: () => void
}

/**
 * Runs `task` every `intervalMillis` in which a commit was `written`. `task`
 * tells whether it started: one that could not (it was still running) is
 * tried again the next interval. The timer does not keep the process alive.
 */
export const start = (intervalMillis: number, task: () => boolean): WhileWritten => {
  let dirty = false
  const timer = setInterval(() => {
    if (dirty && task()) dirty = false
  }, intervalMillis)
  timer.unref()
  return {
    written: () => {
      dirty = true
    },
    stop: () => clearInterval(timer)
  }
}
