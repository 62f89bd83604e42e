/**
 * The supervisor of `animal-store serve` (records 0035, 0045, 0046, 0067): it
 * forks the workers, holds the ports and hands each connection to a serving
 * worker in turn (a lone worker accepts the API's itself; 503 while none
 * serves), gathers their metrics and readiness, restarts a worker that exits
 * and replaces them on SIGHUP. It loads no store, no HTTP API.
 *
 * @internal
 */
import type { Worker } from "node:cluster"
import Cluster from "node:cluster"
import * as Crypto from "node:crypto"
import * as Http from "node:http"
import * as Net from "node:net"
import type { Scope } from "effect"
import {
  Clock,
  Data,
  Deferred,
  Duration,
  Effect,
  Exit,
  Fiber,
  FiberId,
  FiberRef,
  LogLevel,
  Predicate,
  Queue,
  Runtime,
  Schedule
} from "effect"
import * as JsonFormat from "./jsonFormat.js"
import * as Supervision from "./supervision.js"
import * as WorkerMetrics from "./workerMetrics.js"

/**
 * The workers cannot serve this store.
 *
 * @internal
 */
export class WorkersError extends Data.TaggedError("WorkersError")<{ readonly message: string }> {}

/** A worker exited before it served, during the start, with this exit code: it printed why. */
class StartFailed extends Data.TaggedError("StartFailed")<{ readonly code: number }> {}

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
 * The schedule of a worker's restarts: `first`, doubling while workers exit
 * within `stable` of their start, at most `longest`.
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

/** How long a worker told to drain may take before it is killed. */
const drainLimit = Duration.seconds(60)

/** How long a scrape waits for the workers' metrics. */
const metricsLimitMillis = 3_000

/** How long a readiness probe waits for the workers' answers (each one's check takes at most 1 s). */
const readinessLimitMillis = 2_000

interface Ended {
  readonly code: number | null
  readonly signal: string | null
}

/** A process forked for worker `worker`. */
interface Forked {
  readonly worker: number
  /** The order of the forks: a later one is the newer process of its worker. */
  readonly seq: number
  readonly process: Worker
  readonly pid: number | undefined
  readonly startedAt: number
  /** Done once it serves the connections it is handed. */
  readonly serving: Deferred.Deferred<void>
  readonly exited: Deferred.Deferred<Ended>
  /** Replaced, or stopped with the others: its exit is expected. */
  retired: boolean
  /** It has served (and answers the supervisor's requests). */
  served: boolean
  /** Its latest metrics (`taken` as it numbered them). */
  metrics: { readonly taken: number; readonly metrics: ReadonlyArray<WorkerMetrics.MetricJson> } | undefined
}

/** One worker's place: the process that serves for it now (none before its first start). */
interface Slot {
  readonly worker: number
  current: Forked | undefined
}

/** A listening socket's handle received from a worker: a copy that accepts nothing until listened on. */
type Handle = { readonly close: () => void }

const isHandle = (handle: unknown): handle is Handle =>
  Predicate.hasProperty(handle, "close") && Predicate.isFunction(handle.close)

/**
 * The API's listening socket when one worker serves (record 0067): that worker
 * accepts from it itself, and the supervisor keeps a copy that accepts nothing,
 * so connections wait in the backlog; the supervisor accepts only while no worker serves.
 */
class SharedPort {
  private copy: Handle | undefined
  private closed = false

  constructor(private accepting: Net.Server | undefined, private readonly accept: (socket: Net.Socket) => void) {}

  /** `forked` serves: it gets the socket (`listenCopies` times), and answers `Listening` with a copy (`kept`). */
  give(forked: Forked): void {
    this.resume()
    if (this.accepting === undefined || !forked.process.isConnected()) return
    const listen: Supervision.Listen = { _tag: "AnimalStore/Listen", copies: Supervision.listenCopies }
    for (let copy = 0; copy < listen.copies; copy++) forked.process.send(listen, this.accepting, undefined, () => {})
  }

  /** A worker accepts from the socket: its copy is kept here, where nothing accepts any more, while `serving`. */
  kept(copy: unknown, serving: boolean): void {
    if (!isHandle(copy)) return
    if (this.closed || !serving || this.copy !== undefined) return copy.close()
    this.copy = copy
    this.accepting?.close()
    this.accepting = undefined
  }

  /** No worker serves: the supervisor accepts again. */
  resume(): void {
    if (this.closed || this.accepting !== undefined || this.copy === undefined) return
    const server = Net.createServer({ pauseOnConnect: true, noDelay: true }, this.accept)
    server.on("error", () => {})
    server.listen(this.copy)
    this.copy = undefined
    this.accepting = server
  }

  close(): void {
    this.closed = true
    this.accepting?.close()
    this.copy?.close()
  }
}

/**
 * Where each accepted connection goes: the serving workers in turn; held during
 * the first start, else refused with 503 while none serves.
 */
class Pool {
  private serving: Array<Forked> = []
  private turn = 0
  private held: Array<readonly [Supervision.Listener, Net.Socket]> = []
  /** Connections handed to a worker, kept open until it took its copy (Node keeps one in flight to a dead worker). */
  private readonly handed = new Map<
    number,
    { readonly listener: Supervision.Listener; readonly socket: Net.Socket; readonly forked: Forked }
  >()
  private nextId = 1
  private holding = true
  /** Whether any worker has served: later ones do not provision the keys again. */
  everServed = false
  /** When each dead worker is due to be started again. */
  readonly restartDue = new Map<number, number>()
  /** The API's socket, when a lone worker accepts from it. */
  port: SharedPort | undefined

  /** How a connection is answered while no worker serves: closed until `refuseWith` says otherwise. */
  private refuse: (listener: Supervision.Listener, socket: Net.Socket) => void = (_, socket) => socket.destroy()

  refuseWith(refuse: (listener: Supervision.Listener, socket: Net.Socket) => void): void {
    this.refuse = refuse
  }

  add(forked: Forked): void {
    if (forked.retired || this.serving.includes(forked)) return
    this.serving.push(forked)
    this.everServed = true
    this.holding = false
    const held = this.held
    this.held = []
    for (const [listener, socket] of held) this.route(listener, socket)
    this.port?.give(forked)
  }

  remove(forked: Forked): void {
    const i = this.serving.indexOf(forked)
    if (i !== -1) this.serving.splice(i, 1)
    if (this.serving.length === 0) this.port?.resume()
  }

  /** `forked` accepts from the API's socket: `copy` is kept while it serves. */
  listening(forked: Forked, copy: unknown): void {
    this.port?.kept(copy, this.serving.includes(forked))
  }

  route(listener: Supervision.Listener, socket: Net.Socket): void {
    if (this.serving.length > 0) {
      this.turn = (this.turn + 1) % this.serving.length
      const forked = this.serving[this.turn]!
      const id = this.nextId++
      this.handed.set(id, { listener, socket, forked })
      const message: Supervision.Connection = { _tag: "AnimalStore/Connection", listener, id }
      forked.process.send(message, socket, { keepOpen: true }, (error) => {
        if (error === null || error === undefined || !this.handed.delete(id)) return
        this.remove(forked)
        this.route(listener, socket)
      })
    } else if (this.holding) {
      this.held.push([listener, socket])
    } else {
      this.refuse(listener, socket)
    }
  }

  /** The worker has its copy of connection `id`: this one is closed (the connection stays open). */
  took(id: number): void {
    const handed = this.handed.get(id)
    if (handed === undefined) return
    this.handed.delete(id)
    handed.socket.destroy()
  }

  /** `forked` is gone: the connections it had not taken go to another worker, or are refused. */
  lost(forked: Forked): void {
    this.remove(forked)
    for (const [id, handed] of this.handed) {
      if (handed.forked !== forked) continue
      this.handed.delete(id)
      this.route(handed.listener, handed.socket)
    }
  }

  /** No more waiting for a first worker: those waiting are refused (`refuse`) or closed. */
  stopHolding(refuse: boolean): void {
    this.holding = false
    const held = this.held
    this.held = []
    for (const [listener, socket] of held) refuse ? this.refuse(listener, socket) : socket.destroy()
  }

  /** Seconds until a worker is due to be started again, at least 1. */
  retryAfterSeconds(now: number): number {
    const due = Math.min(...this.restartDue.values())
    return Number.isFinite(due) ? Math.max(1, Math.ceil((due - now) / 1000)) : 1
  }
}

/** What the supervisor knows and holds. */
interface State {
  readonly pool: Pool
  readonly live: Set<Forked>
  readonly configured: Deferred.Deferred<Supervision.Serve>
  /** The ports once listening; workers that asked before wait in `awaitingAddress`. */
  address: Supervision.Address | undefined
  readonly awaitingAddress: Array<Forked>
  /** Questions to the workers under way, by the id the supervisor gave. */
  readonly asks: Map<number, Asking>
  nextAsk: number
  forks: number
  /** The processes whose metrics count as they last sent them: those forked, until their channel closes. */
  readonly reporting: Set<Forked>
  /** By worker, the counts of its processes whose channel closed: added to the service's, so none goes backwards. */
  readonly retained: Map<number, ReadonlyArray<WorkerMetrics.MetricJson>>
  /** The supervisor's start, in Unix seconds (as prom-client's `process_start_time_seconds`). */
  readonly startTimeSeconds: number
}

/** A question the supervisor asked some workers. */
interface Asking {
  /** `forked` answered `message`. */
  readonly answer: (forked: Forked, message: Supervision.Message) => void
  /** `forked` will not answer: its channel closed. */
  readonly gone: (forked: Forked) => void
}

const send = (forked: Forked, message: Supervision.Message): void => {
  if (forked.process.isConnected()) forked.process.send(message, undefined, undefined, () => {})
}

/**
 * Asks each of `targets` `tag`; `finish` is called once: all answered or gone,
 * `answer` says enough, or after `limitMillis`.
 */
const gather = (
  state: State,
  targets: ReadonlyArray<Forked>,
  tag: "AnimalStore/Metrics" | "AnimalStore/Readiness",
  limitMillis: number,
  answer: (message: Supervision.Message) => boolean,
  finish: () => void
): void => {
  const id = state.nextAsk++
  const pending = new Set(targets)
  let done = false
  const end = () => {
    if (done) return
    done = true
    clearTimeout(timer)
    state.asks.delete(id)
    finish()
  }
  const timer = setTimeout(end, limitMillis)
  state.asks.set(id, {
    answer: (forked, message) => {
      if (pending.delete(forked) && (answer(message) || pending.size === 0)) end()
    },
    gone: (forked) => {
      if (pending.delete(forked) && pending.size === 0) end()
    }
  })
  if (pending.size === 0) end()
  else for (const target of targets) send(target, { _tag: tag, id })
}

/** The service's metrics by worker: each process's latest (a replaced one's counts only), and ended ones' counts. */
const serviceMetrics = (state: State): Supervision.ServiceMetrics["workers"] => {
  const newest = new Map<number, Forked>()
  for (const forked of state.reporting) {
    if (forked.metrics !== undefined && (newest.get(forked.worker)?.seq ?? 0) < forked.seq) newest.set(forked.worker, forked)
  }
  const workers: Array<Supervision.ServiceMetrics["workers"][number]> = []
  for (const forked of state.reporting) {
    if (forked.metrics === undefined) continue
    const metrics = forked.metrics.metrics
    workers.push({ worker: forked.worker, metrics: newest.get(forked.worker) === forked ? metrics : WorkerMetrics.countsOf(metrics) })
  }
  for (const [worker, metrics] of state.retained) workers.push({ worker, metrics })
  return workers
}

/** The service's metrics for the worker that asked (`id` its own), once every worker that served has sent its own. */
const scrape = (state: State, asking: Forked, id: number): void =>
  gather(
    state,
    [...state.reporting].filter((forked) => forked.served && forked.process.isConnected()),
    "AnimalStore/Metrics",
    metricsLimitMillis,
    () => false,
    () =>
      send(asking, {
        _tag: "AnimalStore/ServiceMetrics",
        id,
        workers: serviceMetrics(state),
        startTimeSeconds: state.startTimeSeconds
      })
  )

/** Whether the service is ready, for the worker that asked (`id` its own): ready once one serving worker's store answers. */
const readiness = (state: State, asking: Forked, id: number): void => {
  const targets = [...state.live].filter((forked) => forked.served && !forked.retired && forked.process.isConnected())
  let ready = false
  let why: string | undefined
  gather(state, targets, "AnimalStore/Readiness", readinessLimitMillis, (message) => {
    if (message._tag !== "AnimalStore/ReadinessReply") return false
    ready ||= message.ready
    why ??= message.message
    return ready
  }, () =>
    send(asking, {
      _tag: "AnimalStore/ReadinessReply",
      id,
      ready,
      message: ready ? undefined : why ?? (targets.length === 0
        ? "No worker serves: the service is restarting"
        : "No worker answered the readiness check within 2 s")
    }))
}

const onMessage = (state: State, forked: Forked, message: unknown, handle: unknown): void => {
  if (!Supervision.isMessage(message)) return
  switch (message._tag) {
    case "AnimalStore/Serve":
      Deferred.unsafeDone(state.configured, Exit.succeed(message))
      if (state.address === undefined) state.awaitingAddress.push(forked)
      else send(forked, state.address)
      return
    case "AnimalStore/Ready":
      forked.served = true
      Deferred.unsafeDone(forked.serving, Exit.void)
      state.pool.add(forked)
      return
    case "AnimalStore/Took":
      return state.pool.took(message.id)
    case "AnimalStore/Listening":
      return state.pool.listening(forked, handle)
    case "AnimalStore/Metrics":
      return scrape(state, forked, message.id)
    case "AnimalStore/MetricsReply":
      if (forked.metrics === undefined || forked.metrics.taken < message.taken) {
        forked.metrics = { taken: message.taken, metrics: message.metrics as ReadonlyArray<WorkerMetrics.MetricJson> }
      }
      return state.asks.get(message.id)?.answer(forked, message)
    case "AnimalStore/Readiness":
      return readiness(state, forked, message.id)
    case "AnimalStore/ReadinessReply":
      return state.asks.get(message.id)?.answer(forked, message)
  }
}

/** The heap policy's young generation cap as a flag of the workers' V8 (record 0045), unless the user sets it. */
const workerExecArgv = (): ReadonlyArray<string> =>
  [...process.execArgv, process.env["NODE_OPTIONS"] ?? ""].some((arg) => arg.includes("--max-semi-space-size"))
    ? process.execArgv
    : ["--max-semi-space-size=8", ...process.execArgv]

/** One malloc arena in the workers (record 0073), unless the user sets how many. */
const workerEnv = (): Record<string, string> =>
  process.env["MALLOC_ARENA_MAX"] === undefined ? { MALLOC_ARENA_MAX: "1" } : {}

const fork = (state: State, worker: number): Effect.Effect<Forked> =>
  Effect.flatMap(Clock.currentTimeMillis, (startedAt) =>
    Effect.sync(() => {
      Cluster.setupPrimary({ execArgv: [...workerExecArgv()] })
      const process = Cluster.fork({
        ...workerEnv(),
        [Supervision.workerVariable]: String(worker),
        [Supervision.provisionVariable]: state.pool.everServed ? "" : "1"
      })
      const forked: Forked = {
        worker,
        seq: ++state.forks,
        process,
        pid: process.process.pid,
        startedAt,
        serving: Deferred.unsafeMake(FiberId.none),
        exited: Deferred.unsafeMake(FiberId.none),
        retired: false,
        served: false,
        metrics: undefined
      }
      state.live.add(forked)
      state.reporting.add(forked)
      state.pool.restartDue.delete(worker)
      process.on("message", (message, handle) => onMessage(state, forked, message, handle))
      process.once("disconnect", () => {
        state.pool.remove(forked)
        // It sends nothing more: its counts are kept for the service.
        state.reporting.delete(forked)
        if (forked.metrics !== undefined) {
          state.retained.set(worker, WorkerMetrics.addCounts(state.retained.get(worker) ?? [], forked.metrics.metrics))
        }
        for (const asking of state.asks.values()) asking.gone(forked)
      })
      process.once("exit", (code: number | null, signal: string | null) => {
        state.live.delete(forked)
        state.pool.lost(forked)
        Deferred.unsafeDone(forked.exited, Exit.succeed({ code, signal }))
      })
      // A failure to fork is followed by its exit; unhandled, it would end the supervisor.
      process.on("error", () => {})
      return forked
    }))

/** Tells a worker to drain (over IPC, after the connections already handed to it), else SIGTERM. */
const drain = (forked: Forked, gently: boolean): void => {
  forked.retired = true
  try {
    if (forked.process.isConnected()) forked.process.send({ _tag: "AnimalStore/Drain", gently } satisfies Supervision.Drain)
    else forked.process.process.kill("SIGTERM")
  } catch {
    // It is already gone.
  }
}

/** Drains `forked` and waits for its exit; killed if it takes longer than `drainLimit`. */
const retire = (forked: Forked, gently: boolean): Effect.Effect<Ended> =>
  Effect.suspend(() => {
    drain(forked, gently)
    return Deferred.await(forked.exited).pipe(
      Effect.timeout(drainLimit),
      Effect.catchTag("TimeoutException", () =>
        Effect.zipRight(
          Effect.logError("worker killed: it did not drain in time").pipe(
            Effect.annotateLogs({ worker: forked.worker, pid: forked.pid })
          ),
          Effect.suspend(() => {
            forked.process.process.kill("SIGKILL")
            return Deferred.await(forked.exited)
          })
        ))
    )
  })

/** Whether `forked` served before it exited. */
const servedOrExited = (forked: Forked): Effect.Effect<boolean> =>
  Effect.raceFirst(Effect.as(Deferred.await(forked.serving), true), Effect.as(Deferred.await(forked.exited), false))

/** The exit of the process of `slot`, following the processes that replaced it. */
const slotExit = (slot: Slot): Effect.Effect<readonly [Forked, Ended]> =>
  Effect.gen(function*() {
    for (;;) {
      const forked = slot.current!
      const ended = yield* Deferred.await(forked.exited)
      if (!forked.retired || slot.current === forked) return [forked, ended] as const
    }
  })

/**
 * One worker kept running, restarted after each exit; one that exits with an
 * error before it served, during the start, fails the start.
 */
const keep = (
  state: State,
  slot: Slot,
  started: () => boolean,
  firstServed: Deferred.Deferred<void>,
  policy: RestartPolicy
): Effect.Effect<never, StartFailed> => {
  let forkNew = false
  const once = Effect.gen(function*() {
    if (forkNew || slot.current === undefined) slot.current = yield* fork(state, slot.worker)
    forkNew = true
    const forked = slot.current
    if (yield* servedOrExited(forked)) {
      yield* Deferred.succeed(firstServed, undefined)
    } else if (!started()) {
      const { code } = yield* Deferred.await(forked.exited)
      if (code !== null && code !== 0) return yield* new StartFailed({ code })
    }
    const [gone, { code, signal }] = yield* slotExit(slot)
    const exit: WorkerExit = {
      worker: slot.worker,
      pid: gone.pid,
      code,
      signal,
      uptimeMillis: (yield* Clock.currentTimeMillis) - gone.startedAt
    }
    return exit
  })
  return Effect.repeat(
    once,
    restarts(policy).pipe(Schedule.tapOutput(([exit, delay]) =>
      Effect.flatMap(Clock.currentTimeMillis, (now) => {
        state.pool.restartDue.set(exit.worker, now + Duration.toMillis(delay))
        state.pool.stopHolding(true)
        return Effect.logError("worker exited").pipe(Effect.annotateLogs({
          worker: exit.worker,
          pid: exit.pid,
          code: exit.code,
          signal: exit.signal,
          restartInMs: Duration.toMillis(delay)
        }))
      })
    ))
  ).pipe(Effect.zipRight(Effect.never))
}

/**
 * Replaces every serving worker in turn, draining the old one gently once the
 * new one serves; stops at a replacement that exits before it serves.
 */
const replaceAll = (state: State, slots: ReadonlyArray<Slot>): Effect.Effect<void> =>
  Effect.gen(function*() {
    for (const slot of slots) {
      const old = slot.current
      if (old === undefined || !(yield* Deferred.isDone(old.serving)) || (yield* Deferred.isDone(old.exited))) continue
      const next = yield* fork(state, slot.worker)
      if (!(yield* servedOrExited(next))) {
        yield* Effect.logError("rolling restart stopped: the new worker exited before it served").pipe(
          Effect.annotateLogs({ worker: slot.worker, pid: next.pid, kept: old.pid })
        )
        return
      }
      if (yield* Deferred.isDone(old.exited)) {
        // The old one died meanwhile and is restarted already: the new one is not needed.
        yield* retire(next, false)
        continue
      }
      state.pool.remove(old)
      slot.current = next
      yield* retire(old, true)
      yield* Effect.logInfo("worker replaced").pipe(Effect.annotateLogs({ worker: slot.worker, pid: next.pid, replaced: old.pid }))
    }
    yield* Effect.logInfo("Rolling restart done: every worker replaced")
  })

const jsonContentType = "application/json; charset=utf-8"

/** `X-Request-Id` kept when it is 1 to 128 visible ASCII characters (as the workers do), else made. */
const requestIdOf = (value: string | Array<string> | undefined): string =>
  typeof value === "string" && /^[\x21-\x7e]{1,128}$/.test(value) ? value : Crypto.randomUUID()

/**
 * Answers a connection while no worker serves: 503 with `Retry-After`
 * (`/healthz` 200), `Connection: close`; the API port's logged as the workers do.
 */
const refusals = (pool: Pool, accessLog: boolean, runtime: Runtime.Runtime<never>) => {
  const answer = (listener: Supervision.Listener) => (request: Http.IncomingMessage, response: Http.ServerResponse) => {
    const started = performance.now()
    request.resume()
    const path = (request.url ?? "/").split("?")[0]!
    const requestId = requestIdOf(request.headers["x-request-id"])
    const healthy = path === "/healthz" && (request.method === "GET" || request.method === "HEAD")
    const status = healthy ? 200 : 503
    const body = healthy
      ? "{\"status\":\"ok\"}"
      : "{\"code\":\"service_unavailable\",\"message\":\"The service is restarting; retry later\",\"status\":503}"
    response.writeHead(status, {
      "content-type": jsonContentType,
      "content-length": Buffer.byteLength(body),
      "x-request-id": requestId,
      ...(healthy ? {} : { "retry-after": String(pool.retryAfterSeconds(Date.now())) }),
      connection: "close"
    })
    response.end(body)
    if (accessLog && listener === "main") {
      const probe = path === "/healthz" || path === "/readyz"
      Runtime.runFork(runtime)(
        (probe ? Effect.logDebug("http.request") : Effect.logInfo("http.request")).pipe(Effect.annotateLogs({
          method: request.method ?? "",
          path: request.url ?? "/",
          status,
          durationMs: performance.now() - started,
          client: request.socket.remoteAddress ?? "",
          requestId
        }))
      )
    }
  }
  const servers = {
    main: Http.createServer({ requireHostHeader: false }, answer("main")),
    ops: Http.createServer({ requireHostHeader: false }, answer("ops"))
  }
  for (const server of Object.values(servers)) server.on("clientError", (_error, socket) => socket.destroy())
  return (listener: Supervision.Listener, socket: Net.Socket) => {
    servers[listener].emit("connection", socket)
    socket.resume()
  }
}

/** How a refusal names the operations listener's address. */
const opsPortName = "the operations port (--ops-port) "

/** A socket listening on `host`:`port` (`what`, in a refusal) whose connections go to `route`, closed with the scope. */
const listen = (
  host: string,
  port: number,
  route: (socket: Net.Socket) => void,
  what = ""
): Effect.Effect<Net.Server, WorkersError, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.async<Net.Server, WorkersError>((resume) => {
      const server = Net.createServer({ pauseOnConnect: true, noDelay: true }, route)
      const failed = (error: Error) =>
        resume(Effect.fail(new WorkersError({ message: `cannot listen on ${what}${host}:${port}: ${error.message}` })))
      server.once("error", failed)
      server.listen({ host, port }, () => {
        server.off("error", failed)
        // Accepting fails for a while when file descriptors run out: Node retries by itself.
        server.on("error", () => {})
        resume(Effect.succeed(server))
      })
    }),
    (server) => Effect.sync(() => server.close())
  )

const portOf = (server: Net.Server): number => (server.address() as Net.AddressInfo).port

/** The signals the supervisor handles, as they come, while the scope is open. */
const signals = Effect.acquireRelease(
  Effect.flatMap(Queue.unbounded<NodeJS.Signals>(), (queue) =>
    Effect.sync(() => {
      const offer = (signal: NodeJS.Signals) => Queue.unsafeOffer(queue, signal)
      for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) process.on(signal, offer)
      return { queue, offer }
    })),
  ({ offer }) => Effect.sync(() => {
    for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) process.off(signal, offer)
  })
)

/**
 * The supervisor until it is stopped, as the process's exit code: 0 after a
 * signal, a worker's code when it exits before it served during the start, 1
 * when a port cannot be listened on.
 *
 * @internal
 */
export const supervise = (policy: RestartPolicy = restartDefaults): Effect.Effect<number> =>
  Effect.scoped(Effect.gen(function*() {
    const { queue } = yield* signals
    const state: State = {
      pool: new Pool(),
      live: new Set(),
      configured: yield* Deferred.make<Supervision.Serve>(),
      address: undefined,
      awaitingAddress: [],
      asks: new Map(),
      nextAsk: 1,
      forks: 0,
      reporting: new Set(),
      retained: new Map(),
      startTimeSeconds: Math.round(Date.now() / 1000 - process.uptime())
    }
    // Released after the listeners (acquired later): every worker drains once no connection comes.
    yield* Effect.addFinalizer(() =>
      Effect.suspend(() => {
        state.pool.stopHolding(false)
        return Effect.forEach([...state.live], (forked) => retire(forked, false), { concurrency: "unbounded", discard: true })
      })
    )

    // The first worker reads the command line.
    const lead = yield* fork(state, 1)
    const first: Slot = { worker: 1, current: lead }
    const configuration = yield* Effect.raceAll([
      Effect.map(Deferred.await(state.configured), (serve) => ({ _tag: "Serve", serve }) as const),
      Effect.map(Deferred.await(lead.exited), (ended) => ({ _tag: "Ended", ended }) as const),
      Effect.as(Queue.take(queue), { _tag: "Stopped" } as const)
    ])
    if (configuration._tag === "Stopped") return 0
    if (configuration._tag === "Ended") {
      const { code, signal } = configuration.ended
      if (code !== null) return code
      yield* Effect.sync(() => console.error(`animal-store: the server's first worker ended with ${signal} before it started`))
      return 1
    }
    const config = configuration.serve
    yield* FiberRef.set(
      FiberRef.currentMinimumLogLevel,
      LogLevel.allLevels.find((level) => level._tag === config.logLevel) ?? LogLevel.Info
    )
    state.pool.refuseWith(refusals(state.pool, config.accessLog, yield* Effect.runtime<never>()))

    const bound = yield* Effect.either(Effect.all({
      main: listen(config.host, config.port, (socket) => state.pool.route("main", socket)),
      ops: config.ops === undefined
        ? Effect.succeed(undefined)
        : listen(config.ops.host, config.ops.port, (socket) => state.pool.route("ops", socket), opsPortName)
    }))
    if (bound._tag === "Left") {
      yield* Effect.sync(() => console.error(`animal-store: ${bound.left.message}`))
      return 1
    }
    if (config.ops !== undefined && bound.right.ops !== undefined) {
      yield* Effect.logInfo(`Operations listening on http://${config.ops.host}:${portOf(bound.right.ops)}`)
    }
    if (config.workers === 1) {
      state.pool.port = new SharedPort(bound.right.main, (socket) => state.pool.route("main", socket))
      yield* Effect.addFinalizer(() => Effect.sync(() => state.pool.port?.close()))
    }
    state.address = {
      _tag: "AnimalStore/Address",
      port: portOf(bound.right.main),
      opsPort: bound.right.ops === undefined ? undefined : portOf(bound.right.ops)
    }
    for (const forked of state.awaitingAddress.splice(0)) send(forked, state.address)

    // Worker 1 prepares the store (migrations, keys); the others start once it served.
    const slots: Array<Slot> = [first]
    for (let worker = 2; worker <= config.workers; worker++) slots.push({ worker, current: undefined })
    const firstServed = yield* Effect.forEach(slots, () => Deferred.make<void>())
    let started = false
    const kept = yield* Effect.forkScoped(Effect.forEach(slots, (slot, i) =>
      i === 0
        ? keep(state, slot, () => started, firstServed[0]!, policy)
        : Effect.zipRight(Deferred.await(firstServed[0]!), keep(state, slot, () => started, firstServed[i]!, policy)), {
      concurrency: "unbounded",
      discard: true
    }))
    yield* Effect.forkScoped(Effect.gen(function*() {
      yield* Effect.forEach(firstServed, Deferred.await, { discard: true })
      started = true
      if (config.workers > 1) yield* Effect.logInfo(`Animal Store serving with ${config.workers} workers`)
    }))

    const stopped: Effect.Effect<number, never, Scope.Scope> = Effect.gen(function*() {
      let rolling: Deferred.Deferred<void> | undefined
      for (;;) {
        const signal = yield* Queue.take(queue)
        if (signal !== "SIGHUP" || config.workers === 1) {
          yield* Effect.logInfo(`${signal} received: shutting down`).pipe(Effect.annotateLogs({ signal }))
          return 0
        }
        if (!started || (rolling !== undefined && !(yield* Deferred.isDone(rolling)))) {
          yield* Effect.logWarning(`SIGHUP received: ignored, ${started ? "a rolling restart is under way" : "the workers are starting"}`)
          continue
        }
        yield* Effect.logInfo("SIGHUP received: replacing the workers one by one").pipe(Effect.annotateLogs({ signal }))
        const done = yield* Deferred.make<void>()
        rolling = done
        yield* Effect.forkScoped(Effect.ensuring(replaceAll(state, slots), Deferred.succeed(done, undefined)))
      }
    })
    const failed = Fiber.join(kept).pipe(Effect.zipRight(Effect.never), Effect.catchAll((failed) => Effect.succeed(failed.code)))
    return yield* Effect.raceFirst(stopped, failed)
  }))

/**
 * Runs the supervisor as this process's program (JSON lines on stdout), then exits with its code.
 *
 * @internal
 */
export const main = (): void => {
  const keepAlive = setInterval(() => {}, 2 ** 31 - 1)
  Effect.runFork(supervise().pipe(Effect.provide(JsonFormat.layer))).addObserver((exit) => {
    clearInterval(keepAlive)
    if (Exit.isFailure(exit)) console.error(`animal-store: unexpected error in the supervisor: ${String(exit.cause)}`)
    process.exit(Exit.isSuccess(exit) ? exit.value : 1)
  })
}
