import { afterEach, beforeEach, describe, expect, it, vi } from "vitest"
import * as WhileWritten from "../src/internal/whileWritten.js"

describe("a task run while commits are written", () => {
  beforeEach(() => {
    vi.useFakeTimers()
  })
  afterEach(() => {
    vi.useRealTimers()
  })

  it("runs once in an interval in which a commit was written, not in one without", () => {
    let runs = 0
    const schedule = WhileWritten.start(100, () => {
      runs++
      return true
    })
    vi.advanceTimersByTime(250)
    expect(runs).toBe(0)
    schedule.written()
    schedule.written()
    vi.advanceTimersByTime(100)
    expect(runs).toBe(1)
    vi.advanceTimersByTime(300)
    expect(runs).toBe(1)
    schedule.stop()
  })

  it("tries again the next interval when the task could not start, and never once stopped", () => {
    const answers = [false, true]
    let tries = 0
    const schedule = WhileWritten.start(100, () => answers[tries++] ?? true)
    schedule.written()
    vi.advanceTimersByTime(100)
    expect(tries).toBe(1)
    vi.advanceTimersByTime(100)
    expect(tries).toBe(2)
    vi.advanceTimersByTime(100)
    expect(tries).toBe(2)
    schedule.written()
    schedule.stop()
    vi.advanceTimersByTime(500)
    expect(tries).toBe(2)
  })
})
