/**
 * What the supervisor of `animal-store serve` and its workers say to each
 * other over IPC; imports nothing but node:cluster, so the supervisor loads it alone.
 *
 * @internal
 */
import Cluster from "node:cluster"

/** The variable holding a worker's number (1 to N, kept across its restarts). */
export const workerVariable = "ANIMAL_STORE_WORKER"

/** The variable set on a worker forked while no worker has served yet: it provisions `ANIMAL_STORE_API_KEYS`. */
export const provisionVariable = "ANIMAL_STORE_WORKER_PROVISIONS"

/** A worker process: its number, and whether it provisions the keys. @internal */
export interface WorkerOf {
  readonly worker: number
  readonly provisions: boolean
}

/** This process's place when the supervisor forked it; `undefined` otherwise. @internal */
export const workerOf = (): WorkerOf | undefined => {
  const worker = process.env[workerVariable]
  return Cluster.isWorker && worker !== undefined && /^[1-9][0-9]*$/.test(worker) && process.send !== undefined
    ? { worker: Number(worker), provisions: process.env[provisionVariable] === "1" }
    : undefined
}

/** The listening sockets the supervisor holds: the API's, and the operations listener's. @internal */
export type Listener = "main" | "ops"

/**
 * Worker to supervisor, once its command line is read; the first worker's is
 * the supervisor's configuration. Answered `Address`.
 *
 * @internal
 */
export interface Serve {
  readonly _tag: "AnimalStore/Serve"
  readonly host: string
  readonly port: number
  readonly workers: number
  readonly ops: { readonly host: string; readonly port: number } | undefined
  /** The `_tag` of `--log-level`'s `LogLevel`. */
  readonly logLevel: string
  readonly accessLog: boolean
}

/** Supervisor to worker: the ports it listens on (the configured ones, or those port 0 gave). @internal */
export interface Address {
  readonly _tag: "AnimalStore/Address"
  readonly port: number
  readonly opsPort: number | undefined
}

/** Worker to supervisor: it serves the connections it is handed from now on. @internal */
export interface Ready {
  readonly _tag: "AnimalStore/Ready"
}

/** Supervisor to worker, with the socket of a connection accepted on `listener`; answered `Took`. @internal */
export interface Connection {
  readonly _tag: "AnimalStore/Connection"
  readonly listener: Listener
  readonly id: number
}

/**
 * Supervisor to worker, with the API's listening socket (a `net.Server`), when
 * one worker serves: it accepts from it itself. Sent `copies` times (record 0069);
 * answered `Listening` once every copy arrived.
 *
 * @internal
 */
export interface Listen {
  readonly _tag: "AnimalStore/Listen"
  readonly copies: number
}

/**
 * How many copies of the API's socket a lone worker accepts from: Node accepts one connection per
 * socket each turn of its event loop, so a burst of new connections is taken this many at a time.
 *
 * @internal
 */
export const listenCopies = 16

/** Worker to supervisor, with a copy of that socket's handle, which accepts nothing there. @internal */
export interface Listening {
  readonly _tag: "AnimalStore/Listening"
}

/** Worker to supervisor: it has its copy of the socket of connection `id`. @internal */
export interface Took {
  readonly _tag: "AnimalStore/Took"
  readonly id: number
}

/**
 * Supervisor to worker: stop as SIGTERM does (`gently`: idle keep-alive connections not closed at once).
 *
 * @internal
 */
export interface Drain {
  readonly _tag: "AnimalStore/Drain"
  readonly gently: boolean
}

/**
 * A request for metrics: a worker's for the service's (answered `ServiceMetrics`),
 * the supervisor's for a worker's own (answered `MetricsReply`).
 *
 * @internal
 */
export interface Metrics {
  readonly _tag: "AnimalStore/Metrics"
  readonly id: number
}

/**
 * Worker to supervisor: its own metrics (prom-client's JSON), asked (`id`) or,
 * with `id` 0, the last as it stops; a later `taken` wins.
 *
 * @internal
 */
export interface MetricsReply {
  readonly _tag: "AnimalStore/MetricsReply"
  readonly id: number
  readonly taken: number
  readonly metrics: ReadonlyArray<unknown>
}

/**
 * Supervisor to worker, the answer to its `Metrics` `id`: each worker's
 * metrics (replaced processes' counts only) and the supervisor's start.
 *
 * @internal
 */
export interface ServiceMetrics {
  readonly _tag: "AnimalStore/ServiceMetrics"
  readonly id: number
  readonly workers: ReadonlyArray<{ readonly worker: number; readonly metrics: ReadonlyArray<unknown> }>
  readonly startTimeSeconds: number
}

/**
 * A request for readiness: a worker's for the service's, the supervisor's for
 * a worker's store; both answered `ReadinessReply`.
 *
 * @internal
 */
export interface Readiness {
  readonly _tag: "AnimalStore/Readiness"
  readonly id: number
}

/** The answer to `Readiness` `id`: ready, or why not. @internal */
export interface ReadinessReply {
  readonly _tag: "AnimalStore/ReadinessReply"
  readonly id: number
  readonly ready: boolean
  readonly message: string | undefined
}

/** @internal */
export type Message =
  | Serve
  | Address
  | Ready
  | Connection
  | Took
  | Listen
  | Listening
  | Drain
  | Metrics
  | MetricsReply
  | ServiceMetrics
  | Readiness
  | ReadinessReply

/** Whether an IPC message is one of these (node:cluster and others send theirs on the same channel). @internal */
export const isMessage = (message: unknown): message is Message =>
  typeof message === "object" && message !== null && typeof (message as { _tag?: unknown })._tag === "string" &&
  (message as { _tag: string })._tag.startsWith("AnimalStore/")

type Handlers = { [T in Message["_tag"]]?: (message: Extract<Message, { _tag: T }>, handle: unknown) => void }

const handlers: Handlers = {}
const waiting: Array<readonly [Message, unknown]> = []
let open = false

/**
 * In a worker: starts receiving the supervisor's messages at once (one that comes unheard is lost).
 *
 * @internal
 */
export const openMailbox = (): void => {
  if (open || workerOf() === undefined) return
  open = true
  process.on("message", (message: unknown, handle: unknown) => {
    if (!isMessage(message)) return
    const handler = handlers[message._tag] as ((message: Message, handle: unknown) => void) | undefined
    if (handler === undefined) waiting.push([message, handle])
    else handler(message, handle)
  })
}

/** In a worker: handles the supervisor's messages tagged `tag`, those already come first. @internal */
export const receive = <T extends Message["_tag"]>(
  tag: T,
  handler: (message: Extract<Message, { _tag: T }>, handle: unknown) => void
): void => {
  openMailbox()
  ;(handlers as Record<string, unknown>)[tag] = handler
  for (let i = 0; i < waiting.length;) {
    const [message, handle] = waiting[i]!
    if (message._tag === tag) {
      waiting.splice(i, 1)
      handler(message as Extract<Message, { _tag: T }>, handle)
    } else {
      i++
    }
  }
}

/** In a worker: sends `message` to the supervisor (nothing when it is gone). @internal */
export const tell = (message: Message): void => {
  if (process.connected) process.send?.(message, undefined, undefined, () => {})
}

/** In a worker: sends `message` with `handle` to the supervisor (nothing when it is gone). @internal */
export const tellWith = (message: Message, handle: object): void => {
  const send = process.send as SendWithHandle | undefined
  if (process.connected) send?.call(process, message, handle, undefined, () => {})
}

/** `process.send`, taking a listening socket's bare handle too (Node's `<Handle>`, left out of its types). */
type SendWithHandle = (message: Message, handle: object, options: undefined, callback: () => void) => boolean

/** In a worker: sends `message` to the supervisor; done once it is written (at once when the supervisor is gone). @internal */
export const send = (message: Message): Promise<void> =>
  new Promise((resolve) => {
    if (process.connected && process.send !== undefined) process.send(message, undefined, undefined, () => resolve())
    else resolve()
  })

type Answer = ServiceMetrics | ReadinessReply

const asked = new Map<number, (answer: Answer) => void>()
let nextQuestion = 1
let answersReceived = false

/** Asks the supervisor `tag`: its answer, or `undefined` after `limitMillis`. */
const ask = (tag: "AnimalStore/Metrics" | "AnimalStore/Readiness", limitMillis: number): Promise<Answer | undefined> => {
  if (!answersReceived) {
    answersReceived = true
    const answered = (answer: Answer) => asked.get(answer.id)?.(answer)
    receive("AnimalStore/ServiceMetrics", answered)
    receive("AnimalStore/ReadinessReply", answered)
  }
  return new Promise((resolve) => {
    const id = nextQuestion++
    const timer = setTimeout(() => {
      asked.delete(id)
      resolve(undefined)
    }, limitMillis)
    asked.set(id, (answer) => {
      clearTimeout(timer)
      asked.delete(id)
      resolve(answer)
    })
    tell({ _tag: tag, id })
  })
}

/** In a worker: the service's metrics, from the supervisor; `undefined` when they do not come within `limitMillis`. @internal */
export const askMetrics = (limitMillis: number): Promise<ServiceMetrics | undefined> =>
  ask("AnimalStore/Metrics", limitMillis) as Promise<ServiceMetrics | undefined>

/** In a worker: whether the service is ready, from the supervisor; `undefined` when it does not say within `limitMillis`. @internal */
export const askReadiness = (limitMillis: number): Promise<ReadinessReply | undefined> =>
  ask("AnimalStore/Readiness", limitMillis) as Promise<ReadinessReply | undefined>
