/**
 * The operations listener in a process of its own (a host's, or `Cli.run`'s
 * in-process `serve`): `/healthz` and `/readyz` beside `/metrics`, `/readyz`
 * on the readiness of the store of the context.
 */
import { StoreError, StoreReadiness } from "@animal-store/core"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Layer, Logger, Scope } from "effect"
import * as OpsListener from "../src/OpsListener.js"
import * as ServerMetrics from "../src/ServerMetrics.js"

describe("the operations listener in a process of its own", () => {
  it("answers /healthz and /readyz, 503 with an Error body once the store does not answer", async () => {
    let storeAnswers = true
    const readiness = StoreReadiness.layer(Effect.suspend(() =>
      storeAnswers ? Effect.void : Effect.fail(new StoreError.StoreError({ reason: "Unavailable", message: "the store is away" }))
    ))
    const logged: Array<string> = []
    const logger = Logger.make(({ message }) => logged.push(Array.isArray(message) ? message.join(" ") : String(message)))
    const scope = await Effect.runPromise(Scope.make())
    try {
      await Effect.runPromise(Layer.buildWithScope(
        OpsListener.layer({ host: "127.0.0.1", port: 0 }).pipe(
          Layer.provide(Layer.merge(ServerMetrics.layer, readiness)),
          Layer.provide(Logger.replace(Logger.defaultLogger, logger))
        ),
        scope
      ))
      const origin = /Operations listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(logged.join("\n"))![1]!
      const probe = async (path: string, method = "GET") => {
        const response = await fetch(`${origin}${path}`, { method })
        const text = await response.text()
        return { status: response.status, body: text === "" ? undefined : JSON.parse(text) as unknown }
      }
      expect(await probe("/healthz")).toEqual({ status: 200, body: { status: "ok" } })
      expect(await probe("/healthz", "HEAD")).toEqual({ status: 200, body: undefined })
      expect(await probe("/readyz")).toEqual({ status: 200, body: { status: "ok" } })
      expect((await fetch(`${origin}/metrics`)).status).toBe(200)

      storeAnswers = false
      // The answer is kept for a second.
      let answer = await probe("/readyz")
      for (const deadline = Date.now() + 10_000; answer.status === 200 && Date.now() < deadline;) {
        await new Promise((resolve) => setTimeout(resolve, 100))
        answer = await probe("/readyz")
      }
      expect(answer).toEqual({
        status: 503,
        body: expect.objectContaining({ code: "service_unavailable", status: 503 })
      })
      expect(await probe("/healthz")).toEqual({ status: 200, body: { status: "ok" } })
    } finally {
      await Effect.runPromise(Scope.close(scope, Exit.void))
    }
  })
})
