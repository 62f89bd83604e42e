/**
 * One trace of a createPet through the real request handler on the SQLite
 * store, with a recording tracer installed and the tracer switch on: the
 * server span has two steps, admission (the key lookup and the count beneath
 * it) and the operation (the store's write beneath it), the operation not
 * inside admission.
 */
import { AccessConfig, AnimalStore, ApiKeyAuth } from "@animal-store/core"
import { SqliteStore } from "@animal-store/sqlite-store"
import { describe, expect, it } from "@effect/vitest"
import type { Context, Exit } from "effect"
import { Effect, Layer, Option, Redacted, Tracer } from "effect"
import type * as HttpExchange from "../src/HttpExchange.js"
import * as RequestHandler from "../src/RequestHandler.js"
import { temporaryDatabase } from "./support/TestServer.js"

/** A span as recorded: its name, kind, its parent's id and whether it ended. */
class RecordedSpan implements Tracer.Span {
  readonly _tag = "Span"
  readonly traceId: string
  readonly attributes = new Map<string, unknown>()
  readonly links: Array<Tracer.SpanLink>
  readonly sampled = true
  status: Tracer.SpanStatus
  constructor(
    readonly name: string,
    readonly spanId: string,
    readonly parent: Option.Option<Tracer.AnySpan>,
    readonly context: Context.Context<never>,
    links: ReadonlyArray<Tracer.SpanLink>,
    startTime: bigint,
    readonly kind: Tracer.SpanKind
  ) {
    this.traceId = Option.isSome(parent) ? parent.value.traceId : `trace-${spanId}`
    this.links = [...links]
    this.status = { _tag: "Started", startTime }
  }
  end(endTime: bigint, exit: Exit.Exit<unknown, unknown>) {
    this.status = { _tag: "Ended", startTime: this.status.startTime, endTime, exit }
  }
  attribute(key: string, value: unknown) {
    this.attributes.set(key, value)
  }
  event() {}
  addLinks(links: ReadonlyArray<Tracer.SpanLink>) {
    this.links.push(...links)
  }
}

/** A tracer that keeps every span it makes. */
const recording = () => {
  const spans: Array<RecordedSpan> = []
  const tracer = Tracer.make({
    span: (name, parent, context, links, startTime, kind) => {
      const span = new RecordedSpan(name, `span-${spans.length + 1}`, parent, context, links, startTime, kind)
      spans.push(span)
      return span
    },
    context: (f) => f()
  })
  return { spans, tracer }
}

interface Node {
  readonly name: string
  readonly children: ReadonlyArray<Node>
}

/** The tree of the spans under `root`, children in the order they started. */
const treeOf = (spans: ReadonlyArray<RecordedSpan>, root: RecordedSpan): Node => ({
  name: root.name,
  children: spans
    .filter((span) => Option.isSome(span.parent) && span.parent.value.spanId === root.spanId)
    .map((span) => treeOf(spans, span))
})

const createRequest = (secret: string): HttpExchange.Request => {
  const body = new TextEncoder().encode(JSON.stringify({ name: "Rex", categoryId: 1 }))
  return {
    method: "POST",
    url: "/v1/pets",
    headers: {
      authorization: `Bearer ${secret}`,
      "content-type": "application/json",
      "content-length": String(body.length)
    },
    remoteAddress: "127.0.0.1",
    body: () => Effect.succeed(body)
  }
}

describe("one trace of a createPet", () => {
  it.scoped("is the server span over two steps: admission, then the operation with the store's write", () => {
    const { spans, tracer } = recording()
    return Effect.gen(function*() {
      const filename = yield* temporaryDatabase
      const context = yield* Layer.build(
        AnimalStore.layer.pipe(
          Layer.provide(AccessConfig.layer({})),
          Layer.provide(SqliteStore.layer({ filename })),
          Layer.orDie
        )
      )
      const { handle } = yield* Effect.provide(RequestHandler.makeHandlers({ accessLog: false }), context)
      const issued = yield* Effect.provide(
        Effect.flatMap(ApiKeyAuth.ApiKeyAuth, (auth) => auth.issue({ plan: "free" })),
        context
      ).pipe(Effect.orDie)
      spans.length = 0

      const response = yield* handle(createRequest(Redacted.value(issued.secret)))
      expect(response.status).toBe(201)

      const servers = spans.filter((span) => span.kind === "server")
      expect(servers.map((span) => span.name)).toEqual(["POST /v1/pets"])
      const server = servers[0]!
      expect(spans.every((span) => span.traceId === server.traceId && span.status._tag === "Ended")).toBe(true)
      expect(treeOf(spans, server)).toEqual({
        name: "POST /v1/pets",
        children: [
          {
            name: "GuardedPetOperations.admit",
            children: [
              {
                name: "ApiKeyAuth.authenticate",
                children: [{ name: "SqliteStore.ApiKeyStore.findByDigest", children: [] }]
              },
              {
                name: "PlanRateLimiter.check",
                children: [{ name: "SqliteStore.RateLimitStore.modify", children: [] }]
              }
            ]
          },
          {
            name: "PetOperations.createPet",
            children: [{ name: "SqliteStore.PetRepository.insert", children: [] }]
          }
        ]
      })
      // Every span of the request is in that tree.
      const counted = (node: Node): number => 1 + node.children.reduce((sum, child) => sum + counted(child), 0)
      expect(counted(treeOf(spans, server))).toBe(spans.length)
    }).pipe(Effect.withTracer(tracer), Effect.withTracerEnabled(true))
  })
})
