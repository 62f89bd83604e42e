import type { Plan, StoreError } from "@animal-store/core"
import { AccessConfig, AnimalStore, ApiKeyAuth } from "@animal-store/core"
import { MemoryStore } from "@animal-store/memory-store"
import { SqliteStore } from "@animal-store/sqlite-store"
import { HttpServer } from "@effect/platform"
import { NodeHttpServer } from "@effect/platform-node"
import type { Scope } from "effect"
import { Context, Duration, Effect, Layer, Option, Redacted } from "effect"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import type * as RequestHandler from "../../src/RequestHandler.js"
import * as NodeListeners from "../../src/NodeListeners.js"
import * as NodeServer from "../../src/NodeServer.js"
import * as OpenApiDocument from "../../src/OpenApiDocument.js"
import * as DocumentValidator from "./DocumentValidator.js"

export type StoreKind = "memory" | "sqlite"

export const storeKinds: ReadonlyArray<StoreKind> = ["memory", "sqlite"]

/** A fresh, empty SQLite file in a temporary folder removed with the scope. */
export const temporaryDatabase = Effect.acquireRelease(
  Effect.sync(() => Fs.mkdtempSync(Path.join(Os.tmpdir(), "animal-store-http-"))),
  (folder) => Effect.sync(() => Fs.rmSync(folder, { recursive: true, force: true }))
).pipe(Effect.map((folder) => Path.join(folder, "animal-store.db")))

export const portsOf = (
  kind: StoreKind
): Effect.Effect<Layer.Layer<AnimalStore.StorePorts, StoreError.StoreError>, never, Scope.Scope> =>
  kind === "memory"
    ? Effect.succeed(MemoryStore.layer)
    : Effect.map(temporaryDatabase, (filename) => SqliteStore.layer({ filename }))

export interface TestServer {
  /** `http://127.0.0.1:<port>` */
  readonly origin: string
  readonly issue: (
    plan: Plan.Plan,
    options?: {
      readonly limits?: Plan.PlanLimits
      readonly environment?: "production" | "staging"
      readonly expiresAt?: Date
      readonly window?: "fixed" | "sliding"
    }
  ) => Effect.Effect<{ readonly secret: string; readonly id: string }>
  readonly revoke: (id: string) => Effect.Effect<void>
  /** A new secret for the key; the previous one works for `grace`. */
  readonly rotate: (id: string, grace: Duration.DurationInput) => Effect.Effect<string>
  readonly request: (path: string, init?: RequestInit) => Effect.Effect<Response>
}

export interface TestServerOptions {
  readonly ports: Layer.Layer<AnimalStore.StorePorts, unknown>
  readonly access?: Partial<AccessConfig.AccessSettings>
  readonly adapter?: RequestHandler.Options
  readonly limits?: Partial<NodeServer.ServerLimits>
}

/** The HTTP API over a real port (127.0.0.1, random) on `ports`, closed with the scope. */
export const start = (options: TestServerOptions) =>
  Effect.gen(function*() {
    const listening = Layer.scoped(
      HttpServer.HttpServer,
      Effect.flatMap(
        NodeListeners.make({ accessLog: false, ...options.adapter }),
        (listeners) =>
          NodeHttpServer.make(() => NodeServer.make(options.limits, listeners), { host: "127.0.0.1", port: 0 })
      )
    )
    const context = yield* Layer.build(
      listening.pipe(
        Layer.provideMerge(
          AnimalStore.layer.pipe(Layer.provide(AccessConfig.layer(options.access)), Layer.provide(options.ports))
        ),
        Layer.orDie
      )
    )
    const address = Context.get(context, HttpServer.HttpServer).address
    const auth = Context.get(context, ApiKeyAuth.ApiKeyAuth)
    const origin = address._tag === "TcpAddress" ? `http://127.0.0.1:${address.port}` : ""
    // Every response is checked against the document this server serves (the
    // same `OpenApiDocument`; fetching it here would count in the limits).
    const validate = DocumentValidator.make(
      OpenApiDocument.make(OpenApiDocument.resolveServers(options.adapter?.servers, origin)) as unknown as Record<string, any>,
      new URL(options.adapter?.baseUrl ?? "http://x/v1").pathname
    )
    const server: TestServer = {
      origin,
      issue: (plan, issueOptions) =>
        auth.issue({ plan, ...issueOptions }).pipe(
          Effect.map(({ key, secret }) => ({ secret: Redacted.value(secret), id: key.id })),
          Effect.orDie
        ),
      revoke: (id) => Effect.orDie(auth.revoke(id)),
      rotate: (id, grace) =>
        auth.rotate(id, Duration.decode(grace)).pipe(
          Effect.map((rotated) => Redacted.value(Option.getOrThrow(rotated).secret)),
          Effect.orDie
        ),
      request: (path, init) =>
        Effect.promise(async () => {
          const response = await fetch(origin + path, init)
          const problems = validate(init?.method ?? "GET", path, response, await response.clone().text())
          if (problems.length > 0) throw new Error(`The response breaks the document:\n${problems.join("\n")}`)
          return response
        })
    }
    return server
  })

export const bearer = (secret: string) => ({ authorization: `Bearer ${secret}` })

export const json = (response: Response): Effect.Effect<any> => Effect.promise(() => response.json())

export const jsonBody = (secret: string | undefined, body: unknown): RequestInit => ({
  method: "POST",
  headers: { "content-type": "application/json", ...(secret === undefined ? {} : bearer(secret)) },
  body: typeof body === "string" ? body : JSON.stringify(body)
})
