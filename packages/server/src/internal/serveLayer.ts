/**
 * The layer of one `serve` process: the server and, with `--ops-port`, the
 * operations listener whose metrics observe every request, traced as the
 * `OTEL_*` variables say; in a worker, both on the supervisor's sockets.
 */
import type { AnimalStore, StoreError } from "@animal-store/core"
import type * as HttpServer from "@effect/platform/HttpServer"
import type * as HttpServerError from "@effect/platform/HttpServerError"
import type { Redacted } from "effect"
import { Effect, Layer } from "effect"
import * as AdminApi from "../AdminApi.js"
import type * as KeyProvisioning from "../KeyProvisioning.js"
import * as OpsListener from "../OpsListener.js"
import * as ServerMetrics from "../ServerMetrics.js"
import * as StandaloneServer from "../StandaloneServer.js"
import * as Tracing from "../Tracing.js"
import { CliError } from "./cliOptions.js"
import * as JsonLines from "./jsonLines.js"
import type { ServeOptions } from "./serveOptions.js"
import type * as Supervision from "./supervision.js"
import * as WorkerIntake from "./workerIntake.js"

/** A worker's place: its ports, on the supervisor's sockets, and how many workers serve. */
export interface Supervised {
  readonly address: Supervision.Address
  readonly workers: number
}

/** A failure's cause, as text. */
export const causeText = (cause: unknown): string => cause instanceof Error ? cause.message : String(cause)

/** The operations listener, with the admin API when `adminToken` is given, on `server` when given. */
const opsListener = (
  host: string,
  port: number,
  adminToken: Redacted.Redacted<string> | undefined,
  server?: OpsListener.Options["server"]
) =>
  Layer.unwrapScoped(Effect.gen(function*() {
    const admin = adminToken === undefined ? undefined : yield* AdminApi.httpApp(adminToken)
    return OpsListener.layer({ host, port, admin, server })
  })).pipe(Layer.catchAll((error) =>
    Layer.fail(
      error._tag === "ServeError"
        ? new CliError({ message: `cannot listen on the operations port (--ops-port) ${host}:${port}: ${causeText(error.cause)}` })
        : error
    )
  ))

/**
 * One process's server with the operations listener when `ops` has a port. In
 * a worker (`supervised`) both take their connections from the supervisor, and
 * with several workers a scrape sums them all.
 */
export const layer = (ops: ServeOptions["ops"], supervised: Supervised | undefined) => (
  options: StandaloneServer.Options
): Layer.Layer<
  HttpServer.HttpServer | AnimalStore.Services,
  CliError | StoreError.StoreError | HttpServerError.ServeError | KeyProvisioning.ProvisioningError
> => {
  const http = (observe: StandaloneServer.Options["observe"]) =>
    StandaloneServer.layer(
      {
        ...options,
        observe,
        accessLog: options.accessLog === false ? false : JsonLines.accessLog(),
        // Workers writing one file at once would wait for each other's held writes (record 0068).
        holdWrites: supervised === undefined || supervised.workers === 1
      },
      supervised === undefined ? StandaloneServer.layerHttp : WorkerIntake.layerHttp(options.host, supervised.address.port)
    )
  if (ops?.port === undefined) return Tracing.provideConfig(http(undefined))
  const observed = Layer.unwrapEffect(Effect.map(ServerMetrics.ServerMetrics, ({ observe }) => http(observe)))
  const opsPort = supervised?.address.opsPort ?? ops.port
  const listener = opsListener(
    ops.host,
    opsPort,
    ops.adminToken,
    supervised === undefined ? undefined : WorkerIntake.layerOps(ops.host, opsPort)
  )
  const metrics = supervised !== undefined && supervised.workers > 1 ? ServerMetrics.layerWorker : ServerMetrics.layer
  return Tracing.provideConfig(listener.pipe(Layer.provideMerge(observed), Layer.provide(metrics)))
}
