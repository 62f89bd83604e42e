/**
 * `animal-store serve`: the server until interrupted, in a worker of the bin's
 * supervisor on its sockets, or alone in this process (`Cli.run` called
 * in-process); a failure to start is one line.
 */
import type { StoreError } from "@animal-store/core"
import * as Command from "@effect/cli/Command"
import type * as HttpServerError from "@effect/platform/HttpServerError"
import { Effect, Layer, Logger, LogLevel, Option } from "effect"
import * as KeyProvisioning from "../KeyProvisioning.js"
import * as StoreLocation from "../StoreLocation.js"
import { CliError, storeFailure } from "./cliOptions.js"
import * as JsonLines from "./jsonLines.js"
import * as ProcessPolicy from "./processPolicy.js"
import * as ServeLayer from "./serveLayer.js"
import type { ServeOptions } from "./serveOptions.js"
import { serveOptions } from "./serveOptions.js"
import * as Supervision from "./supervision.js"
import * as WorkerIntake from "./workerIntake.js"

/** A memory store cannot be shared: refused with more than one worker. */
const checkWorkers = (options: ServeOptions): Effect.Effect<void, CliError> =>
  (options.workers ?? 1) > 1 && options.store._tag === "Memory"
    ? Effect.fail(
      new CliError({
        message: `--workers ${options.workers} needs a SQLite or PostgreSQL store: on ${
          StoreLocation.format(options.store)
        } each process would keep its own animals, keys and limits`
      })
    )
    : Effect.void

/**
 * In a worker forked by the supervisor of `serve` (the bin's): its settings
 * to the supervisor, then the server on the supervisor's sockets until told
 * to drain; only the worker the supervisor says provisions the keys (each
 * start of one on the memory store).
 */
const serveSupervised = (worker: Supervision.WorkerOf, { ops, ...options }: ServeOptions) =>
  Effect.gen(function*() {
    const workers = options.workers ?? 1
    const address = yield* WorkerIntake.address({
      host: options.host,
      port: options.port,
      workers,
      ops: ops?.port === undefined ? undefined : { host: ops.host, port: ops.port },
      logLevel: (options.logLevel ?? LogLevel.Info)._tag,
      accessLog: options.accessLog !== false
    })
    if (Option.isSome(address)) {
      const served = ServeLayer.layer(ops, { address: address.value, workers })({
        ...options,
        port: address.value.port,
        // A memory store starts empty in each worker: every start provisions it.
        keys: worker.provisions || options.store._tag === "Memory" ? options.keys : []
      })
      yield* WorkerIntake.run(Layer.merge(ProcessPolicy.layer(true), served))
    }
    yield* WorkerIntake.leave
  }).pipe(Effect.annotateLogs({ worker: worker.worker, pid: process.pid }))

/** The server until interrupted, in a worker or in this process alone (one worker only). */
const serving = (
  options: ServeOptions
): Effect.Effect<void, CliError | StoreError.StoreError | HttpServerError.ServeError | KeyProvisioning.ProvisioningError> => {
  const worker = Supervision.workerOf()
  return worker !== undefined
    ? serveSupervised(worker, options)
    : (options.workers ?? 1) > 1
    ? Effect.fail(new CliError({ message: `--workers ${options.workers} runs under the animal-store command, not in Cli.run` }))
    : Layer.launch(Layer.merge(ProcessPolicy.layer(false), ServeLayer.layer(options.ops, undefined)(options)))
}

/** `serve`'s run: its failures as one line, logged as JSON lines from its `--log-level` up. */
const serve = (options: ServeOptions): Effect.Effect<void, CliError> =>
  Effect.zipRight(checkWorkers(options), serving(options)).pipe(
    Effect.catchTags({
      StoreError: (error) => Effect.fail(storeFailure(options.store)(error)),
      ServeError: (error) =>
        Effect.fail(
          new CliError({
            message: `cannot listen on ${options.host}:${options.port}: ${ServeLayer.causeText(error.cause)}`
          })
        ),
      ProvisioningError: (error) => Effect.fail(new CliError({ message: error.message }))
    }),
    Effect.provide(Layer.merge(JsonLines.layer, Logger.minimumLogLevel(options.logLevel ?? LogLevel.Info)))
  )

/** `serve` and its options. */
export const command = Command.make("serve", { options: serveOptions }, ({ options }) => serve(options)).pipe(
  Command.withDescription(
    `Run the HTTP server; ${KeyProvisioning.variable} provisions keys at start: ` +
      "<key>:<plan> or <key>:enterprise:<perMinute>:<perDay>, comma-separated"
  )
)
