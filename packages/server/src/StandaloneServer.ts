/**
 * The standalone server: the HTTP API on the adapter's hardened Node http server, on a store
 * (memory or a SQLite file), with keys provisioned at start. At shutdown it stops accepting,
 * answers the requests in flight, then closes the store, each step logged.
 *
 * @since 1.0.0
 */
import type { StoreError } from "@animal-store/core"
import { AccessConfig, AnimalStore, ListPetsQuery } from "@animal-store/core"
import type * as HttpServerError from "@effect/platform/HttpServerError"
import * as HttpServer from "@effect/platform/HttpServer"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import type { LogLevel, Redacted } from "effect"
import { Effect, Layer, Logger, RuntimeFlags, RuntimeFlagsPatch } from "effect"
import { NodeListeners, NodeServer, PetsApi, RequestHandler } from "@animal-store/http-adapter"
import * as KeyProvisioning from "./KeyProvisioning.js"
import * as StoreLocation from "./StoreLocation.js"

/**
 * @since 1.0.0
 * @category models
 */
export interface Options extends RequestHandler.Options {
  readonly host: string
  readonly port: number
  readonly store: StoreLocation.StoreLocation
  readonly access?: Partial<AccessConfig.AccessSettings> | undefined
  readonly keys?: ReadonlyArray<KeyProvisioning.Entry> | undefined
  readonly limits?: Partial<NodeServer.ServerLimits> | undefined
  /**
   * The secret that seals listing cursors (`ListPetsQuery.CursorSecret`), in
   * place of the store's. Default: the store's own secret (kept in the
   * database for SQLite and PostgreSQL, so shared by every process of the
   * store and across restarts; made per process for memory).
   */
  readonly cursorSecret?: string | Redacted.Redacted<string> | undefined
  /**
   * A SQLite store is created even where a previous one's files are left
   * without its database (`StoreLocation.OpenOptions`). Default `false`: the
   * start fails.
   */
  readonly create?: boolean | undefined
  /**
   * The lowest level logged while the server is built and serves (access
   * lines are Info, a probe's Debug). Default: the level of the context
   * (Effect's default is Info).
   */
  readonly logLevel?: LogLevel.LogLevel | undefined
}

/** The startup line: where it listens, on which store, for which environment. */
const logListening = (options: Options) =>
  Layer.effectDiscard(
    Effect.flatMap(HttpServer.HttpServer, ({ address }) => {
      const listening = address._tag === "TcpAddress"
        ? `http://${address.hostname}:${address.port}${PetsApi.basePath}`
        : address.path
      return Effect.logInfo(`Animal Store listening on ${listening}`).pipe(
        Effect.annotateLogs({
          address: listening,
          store: StoreLocation.format(options.store),
          environment: options.access?.environment ?? AccessConfig.defaults.environment
        })
      )
    })
  )

/**
 * The services of core on the store at `location` (opened with `open`), with
 * the access settings and the cursor secret: `cursorSecret` when given, in
 * place of the store's own, else the store's.
 *
 * @since 1.0.0
 * @category layers
 */
export const layerServices = (
  location: StoreLocation.StoreLocation,
  access?: Partial<AccessConfig.AccessSettings>,
  cursorSecret?: string | Redacted.Redacted<string>,
  open?: StoreLocation.OpenOptions
): Layer.Layer<AnimalStore.Services, StoreError.StoreError> =>
  AnimalStore.layer.pipe(
    Layer.provide(AccessConfig.layer(access)),
    // In a merge the right-hand layer's services win: the configured secret
    // replaces the store's.
    Layer.provide(
      cursorSecret === undefined
        ? StoreLocation.layer(location, open)
        : Layer.merge(StoreLocation.layer(location, open), ListPetsQuery.layerCursorSecret(cursorSecret))
    )
  )

/**
 * Requests run on the runtime of the effect that made the listeners: made
 * without Effect's runtime metrics (the `effect_fiber_*` counters and
 * lifetime histogram, updated as every fiber starts and ends), which the
 * server does not report and which cost a part of every request.
 */
const withoutRuntimeMetrics = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.withRuntimeFlagsPatch(effect, RuntimeFlagsPatch.disable(RuntimeFlags.RuntimeMetrics))

/**
 * The options of an HTTP server of `layer`.
 *
 * @since 1.0.0
 * @category models
 */
export type HttpOptions = Pick<Options, "host" | "port" | "limits" | keyof RequestHandler.Options>

/**
 * The API on a Node http server with the limits, listening on `options`'
 * host and port until the scope closes (then it drains: it stops accepting,
 * answers with `Connection: close`, closes idle connections and waits for
 * the requests in flight, and logs "Drained"), on the core services of the
 * context.
 *
 * @since 1.0.0
 * @category layers
 */
export const layerHttp = (
  options: HttpOptions
): Layer.Layer<HttpServer.HttpServer, HttpServerError.ServeError, RequestHandler.Requirements> =>
  Layer.scoped(
    HttpServer.HttpServer,
    Effect.gen(function*() {
      const listeners = yield* withoutRuntimeMetrics(NodeListeners.make(options))
      const server = NodeServer.make(options.limits, listeners)
      let listening = false
      // Finalizers run last added first: drain, close (`NodeHttpServer.make`'s), then the log.
      yield* Effect.addFinalizer(() => listening ? Effect.logInfo("Drained: every request in flight answered") : Effect.void)
      const http = yield* NodeHttpServer.make(() => server, { host: options.host, port: options.port })
      listening = true
      yield* Effect.addFinalizer(() =>
        Effect.zipRight(Effect.logInfo("Draining: no new connections"), Effect.sync(() => NodeServer.drain(server)))
      )
      return http
    })
  )

/**
 * The base address of the served environment (its path prefixes `Location`
 * and `Link`): `baseUrl` when given, else the configured server of the
 * environment.
 */
const baseUrlOf = (options: Options): string | undefined =>
  options.baseUrl ??
    (options.access?.environment === "staging" ? options.servers?.staging : options.servers?.production)

/**
 * The server with `options`: built in the order store, keys, HTTP server
 * (`http`, by default `layerHttp`: listening on `options`' host and port);
 * released in the reverse order.
 * It makes spans when the tracer of the context is enabled (Effect's default):
 * `Tracing.provide` exports them, or disables the tracer (record 0065).
 *
 * @since 1.0.0
 * @category layers
 */
export const layer = (
  options: Options,
  http: (
    options: HttpOptions
  ) => Layer.Layer<HttpServer.HttpServer, HttpServerError.ServeError, RequestHandler.Requirements> = layerHttp
): Layer.Layer<
  HttpServer.HttpServer | AnimalStore.Services,
  StoreError.StoreError | HttpServerError.ServeError | KeyProvisioning.ProvisioningError
> => {
  let storeOpen = false
  // Built before the store, released after it: logs that the store was closed.
  const logStoreClosed = Layer.scopedDiscard(
    Effect.addFinalizer(() => storeOpen ? Effect.logInfo("Store closed") : Effect.void)
  )
  const services = Layer.tap(
    layerServices(options.store, options.access, options.cursorSecret, { create: options.create }),
    () => Effect.sync(() => (storeOpen = true))
  )
  const server = logListening(options).pipe(
    Layer.provideMerge(http({ ...options, baseUrl: baseUrlOf(options) })),
    Layer.provide(Layer.effectDiscard(KeyProvisioning.provision(options.keys ?? []))),
    Layer.provideMerge(services),
    Layer.provide(logStoreClosed)
  )
  return options.logLevel === undefined ? server : Layer.provide(server, Logger.minimumLogLevel(options.logLevel))
}
