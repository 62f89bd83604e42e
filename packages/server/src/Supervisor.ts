/**
 * `animal-store serve --workers N`: N processes serving one port and one
 * store (SQLite or PostgreSQL), on node:cluster (the first process holds the
 * listening socket and hands connections to the workers in turn). That first
 * process is a supervisor: it prepares the store once (migrations, provisioned
 * keys), starts the workers, restarts one that exits (logged, with a delay
 * that grows while workers die soon after they start), and when its scope
 * closes stops them all, each finishing its requests in flight. With one
 * worker the server runs in this process, as `StandaloneServer.layer`.
 *
 * @since 1.0.0
 */
import type { AnimalStore, StoreError } from "@animal-store/core"
import type * as HttpServerError from "@effect/platform/HttpServerError"
import type { Layer as L } from "effect"
import { Effect, Either, Layer } from "effect"
import * as Os from "node:os"
import * as Workers from "./internal/workers.js"
import * as KeyProvisioning from "./KeyProvisioning.js"
import * as StandaloneServer from "./StandaloneServer.js"
import * as StoreLocation from "./StoreLocation.js"

/**
 * The server's options and how many processes serve.
 *
 * @since 1.0.0
 * @category models
 */
export interface Options extends StandaloneServer.Options {
  /** Processes serving the port; 1 (the default) serves in this process. */
  readonly workers?: number | undefined
}

export {
  /**
   * The workers cannot serve this store, or one exited before it listened.
   *
   * @since 1.0.0
   * @category errors
   */
  WorkersError
} from "./internal/workers.js"

/**
 * The most workers `parseWorkers` accepts.
 *
 * @since 1.0.0
 * @category constants
 */
export const maxWorkers = 1024

/**
 * Reads a number of workers, or `auto`: the cores available
 * (`os.availableParallelism()`); `Left` with the reason otherwise.
 *
 * @since 1.0.0
 * @category constructors
 */
export const parseWorkers = (text: string): Either.Either<number, string> =>
  text === "auto"
    ? Either.right(Math.min(maxWorkers, Os.availableParallelism()))
    : /^[0-9]+$/.test(text) && Number(text) >= 1 && Number(text) <= maxWorkers
    ? Either.right(Number(text))
    : Either.left(`expected a number of processes from 1 to ${maxWorkers} or auto, got "${text}"`)

/**
 * Where a server of `layer` runs: `alone` (one process) or `worker` (one of
 * N, forked by the supervisor).
 *
 * @since 1.0.0
 * @category models
 */
export type Role = "alone" | "worker"

/**
 * The server of `serve` (`StandaloneServer.layer`, or one made with it) with `options`,
 * in `options.workers` processes: in this
 * process when it is 1; as a worker (serving, its keys already provisioned)
 * in a process the supervisor forked; else as their supervisor, until the
 * scope closes. A memory store is refused with more than one worker (each
 * process would keep its own animals, keys and limits).
 *
 * The supervisor migrates the store and provisions the keys once; then,
 * with `supervisor` given, it keeps the store's services open and runs
 * `supervisor` on them (the operations listener of all the workers) while
 * the workers run; without, it closes the store before starting them.
 *
 * @since 1.0.0
 * @category layers
 */
export const layer = <ROut, E, ROut2 = never, E2 = never>(
  options: Options,
  serve: (options: StandaloneServer.Options, role: Role) => L.Layer<ROut, E>,
  supervisor?: L.Layer<ROut2, E2, AnimalStore.Services>
): L.Layer<
  never,
  E | E2 | StoreError.StoreError | HttpServerError.ServeError | KeyProvisioning.ProvisioningError | Workers.WorkersError
> => {
  const count = options.workers ?? 1
  if (count <= 1) return Layer.discard(serve(options, "alone"))
  if (options.store._tag === "Memory") {
    return Layer.fail(
      new Workers.WorkersError({
        message: `--workers ${count} needs a SQLite or PostgreSQL store: on ${
          StoreLocation.format(options.store)
        } each process would keep its own animals, keys and limits`
      })
    )
  }
  const forked = Workers.workerOf()
  if (forked !== undefined) {
    return Layer.discard(serve({ ...options, port: forked.port, keys: [] }, "worker")).pipe(
      Layer.annotateLogs("worker", forked.worker)
    )
  }
  return Layer.scopedDiscard(Effect.gen(function*() {
    /** The store migrated and its keys provisioned: its services, open until the scope closes. */
    const prepare = Effect.gen(function*() {
      const services = yield* Layer.build(
        StandaloneServer.layerServices(options.store, options.access, options.cursorSecret, { create: options.create })
      )
      yield* Effect.provide(KeyProvisioning.provision(options.keys ?? []), services)
      return services
    })
    if (supervisor === undefined) yield* Effect.scoped(prepare) // the workers open the store each
    else yield* Effect.provide(Layer.build(supervisor), yield* prepare) // stopped after the workers
    yield* Workers.supervise(count, yield* Workers.workersPort(options.host, options.port))
  }))
}
