/**
 * The worker processes of `serve --workers N` on node:cluster: forked from
 * this program, each restarted when it exits (logged, after a delay that
 * grows while workers keep dying soon after they start), all stopped
 * together when the scope closes (SIGTERM: each drains its requests).
 *
 * @internal
 */
import type { Worker } from "node:cluster"
import Cluster from "node:cluster"
import * as Net from "node:net"
import type { Scope } from "effect"
import { Clock, Data, Deferred, Duration, Effect, Exit, FiberId, Schedule } from "effect"

/** The variables that mark a process forked by the supervisor: its number, and the port to listen on. */
const workerVariable = "ANIMAL_STORE_WORKER"
const portVariable = "ANIMAL_STORE_WORKER_PORT"

/** This process's worker number and port when the supervisor forked it. @internal */
export const workerOf = (): { readonly worker: number; readonly port: number } | undefined => {
  const worker = process.env[workerVariable]
  const port = process.env[portVariable]
  const number = (text: string | undefined) => text !== undefined && /^[1-9][0-9]*$/.test(text)
  return Cluster.isWorker && number(worker) && number(port) ? { worker: Number(worker), port: Number(port) } : undefined
}

/**
 * A worker could not start, or the workers cannot serve this store.
 *
 * @internal
 */
export class WorkersError extends Data.TaggedError("WorkersError")<{ readonly message: string }> {}

/**
 * The port every worker listens on, restarted ones too: `port` once this
 * process could listen on it (so a port in use is one line, not one a
 * worker), or when it is 0 one free now (on port 0, workers started after
 * all had died would listen on another).
 *
 * @internal
 */
export const workersPort = (host: string, port: number): Effect.Effect<number, WorkersError> =>
  Effect.async<number, WorkersError>((resume) => {
    const server = Net.createServer()
    server.once("error", (error) =>
      resume(Effect.fail(new WorkersError({ message: `cannot listen on ${host}:${port}: ${error.message}` }))))
    server.listen({ host, port }, () => {
      const { port } = server.address() as Net.AddressInfo
      server.close(() => resume(Effect.succeed(port)))
    })
  })

/** How a worker process ended. @internal */
export interface WorkerExit {
  /** Its number, 1 to N, kept across restarts. */
  readonly worker: number
  readonly pid: number | undefined
  readonly code: number | null
  readonly signal: string | null
  /** From its start to its exit. */
  readonly uptimeMillis: number
}

/** The restart delays. @internal */
export interface RestartPolicy {
  /** The delay after the exit of a worker that had run at least `stable`. */
  readonly first: Duration.DurationInput
  /** Doubled at each exit of a worker that ran less than `stable`, up to this. */
  readonly longest: Duration.DurationInput
  readonly stable: Duration.DurationInput
}

/** @internal */
export const restartDefaults: RestartPolicy = { first: "100 millis", longest: "10 seconds", stable: "10 seconds" }

/**
 * The schedule of a worker's restarts, fed its exits: `first`, doubling
 * while workers exit within `stable` of their start, at most `longest`;
 * back to `first` after a worker that ran `stable`. Outputs the exit and
 * the delay before the restart.
 *
 * @internal
 */
export const restarts = (
  policy: RestartPolicy = restartDefaults
): Schedule.Schedule<readonly [WorkerExit, Duration.Duration], WorkerExit> => {
  const longest = Duration.decode(policy.longest)
  const stable = Duration.toMillis(policy.stable)
  return Schedule.identity<WorkerExit>().pipe(
    Schedule.intersect(Schedule.exponential(policy.first).pipe(Schedule.union(Schedule.spaced(longest)))),
    Schedule.resetWhen(([exit]) => exit.uptimeMillis >= stable),
    Schedule.map(([exit, [delay]]) => [exit, Duration.min(delay, longest)] as const)
  )
}

interface Running {
  readonly worker: Worker
  readonly listening: Deferred.Deferred<void>
  readonly exited: Deferred.Deferred<{ readonly code: number | null; readonly signal: string | null }>
}

const fork = (worker: number, port: number): Effect.Effect<Running> =>
  Effect.sync(() => {
    const listening = Deferred.unsafeMake<void>(FiberId.none)
    const exited = Deferred.unsafeMake<{ readonly code: number | null; readonly signal: string | null }>(FiberId.none)
    const forked = Cluster.fork({ [workerVariable]: String(worker), [portVariable]: String(port) })
    forked.once("listening", () => Deferred.unsafeDone(listening, Exit.void))
    forked.once("exit", (code: number | null, signal: string | null) => Deferred.unsafeDone(exited, Exit.succeed({ code, signal })))
    // A failure to fork is followed by its exit; unhandled, it would end the supervisor.
    forked.on("error", () => {})
    return { worker: forked, listening, exited }
  })

/** SIGTERM (the worker drains and exits), then its exit. */
const stop = (running: Running): Effect.Effect<void> =>
  Effect.suspend(() => {
    running.worker.process.kill("SIGTERM")
    return Deferred.await(running.exited)
  })

const describe = (code: number | null, signal: string | null): string =>
  signal === null ? `exit code ${code}` : `signal ${signal}`

/**
 * One worker from its start to its exit: `ready` succeeds once it listens,
 * or fails if it exits first (a no-op once done). Stopped if interrupted.
 */
const runOnce = (worker: number, port: number, ready: Deferred.Deferred<void, WorkersError>): Effect.Effect<WorkerExit> =>
  Effect.scoped(Effect.gen(function*() {
    const started = yield* Clock.currentTimeMillis
    const running = yield* Effect.acquireRelease(fork(worker, port), stop)
    const pid = running.worker.process.pid
    yield* Effect.logInfo("worker started").pipe(Effect.annotateLogs({ worker, pid }))
    yield* Effect.forkScoped(Effect.zipRight(Deferred.await(running.listening), Deferred.succeed(ready, undefined)))
    const { code, signal } = yield* Deferred.await(running.exited)
    if (!(yield* Deferred.isDone(running.listening))) {
      yield* Deferred.fail(
        ready,
        new WorkersError({ message: `worker ${worker} exited before it listened (${describe(code, signal)})` })
      )
    }
    return { worker, pid, code, signal, uptimeMillis: (yield* Clock.currentTimeMillis) - started }
  }))

/** A worker kept running: restarted after each exit, the exit logged. */
const keep = (worker: number, port: number, ready: Deferred.Deferred<void, WorkersError>, policy: RestartPolicy) =>
  Effect.repeat(
    runOnce(worker, port, ready),
    restarts(policy).pipe(Schedule.tapOutput(([exit, delay]) =>
      Effect.logError("worker exited").pipe(Effect.annotateLogs({
        worker: exit.worker,
        pid: exit.pid,
        code: exit.code,
        signal: exit.signal,
        restartInMs: Duration.toMillis(delay)
      }))
    ))
  )

/**
 * Starts `count` workers listening on `port` and keeps them running until
 * the scope closes, when they are all stopped at once (each drains).
 * Succeeds once every worker listens; fails if one exits before.
 *
 * @internal
 */
export const supervise = (
  count: number,
  port: number,
  policy: RestartPolicy = restartDefaults
): Effect.Effect<void, WorkersError, Scope.Scope> =>
  Effect.gen(function*() {
    const ready = yield* Effect.forEach(Array.from({ length: count }), () => Deferred.make<void, WorkersError>())
    yield* Effect.forkScoped(
      Effect.forEach(ready, (deferred, i) => keep(i + 1, port, deferred, policy), { concurrency: "unbounded", discard: true })
    )
    yield* Effect.forEach(ready, Deferred.await, { discard: true })
    yield* Effect.logInfo(`Animal Store serving with ${count} workers`)
  })
