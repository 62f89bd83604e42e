/**
 * The probes (decisions.md "Operations"), outside `/v1`, without a key, not
 * counted: `/healthz` answers 200 while the process serves; `/readyz`
 * answers 200 when the store answered a trivial query within 1 s, at most
 * 1 s ago, else 503 `service_unavailable` with `Retry-After`.
 *
 * @since 1.0.0
 */
import { StoreError } from "@animal-store/core"
import { Duration, Effect } from "effect"
import * as ErrorResponse from "./ErrorResponse.js"
import * as HttpExchange from "./HttpExchange.js"
import * as Routes from "./Routes.js"

/**
 * The liveness probe's path.
 *
 * @since 1.0.0
 * @category constants
 */
export const healthzPath = Routes.healthzPath

/**
 * The readiness probe's path.
 *
 * @since 1.0.0
 * @category constants
 */
export const readyzPath = Routes.readyzPath

/**
 * How long the store has to answer, and how long its answer is kept.
 *
 * @since 1.0.0
 * @category constants
 */
export const readinessTimeout: Duration.Duration = Duration.seconds(1)

const noStore = { "cache-control": "no-store" }

/**
 * The answer of `/healthz`, and of `/readyz` when the store is ready.
 *
 * @since 1.0.0
 * @category constants
 */
export const ok: HttpExchange.Response = HttpExchange.json({ status: "ok" }, { status: 200, headers: noStore })

/**
 * The answer of `/readyz` when the store is not ready: 503
 * `service_unavailable` with `Retry-After`, whatever the reason of `error`.
 *
 * @since 1.0.0
 * @category constructors
 */
export const notReady = (error: StoreError.StoreError): HttpExchange.Response => {
  const response = ErrorResponse.make(
    error.reason === "Unavailable" ? error : new StoreError.StoreError({ reason: "Unavailable", message: error.message })
  )
  return { status: response.status, headers: { ...response.headers, ...noStore }, body: response.body }
}

const timedOut = () =>
  new StoreError.StoreError({ reason: "Unavailable", message: "The store did not answer the readiness check within 1 s" })

/**
 * The answer of `/readyz` on the readiness `check`: run at most once a
 * second (concurrent probes wait for the same run), its answer kept for a
 * second from when it started. A change of readiness is logged.
 *
 * @since 1.0.0
 * @category constructors
 */
export const readiness = (
  check: Effect.Effect<void, StoreError.StoreError>
): Effect.Effect<Effect.Effect<HttpExchange.Response>> => {
  let ready = true
  const answer = check.pipe(
    Effect.timeoutFail({ duration: readinessTimeout, onTimeout: timedOut }),
    Effect.matchEffect({
      onFailure: (error) =>
        Effect.as(
          ready ? Effect.logWarning(`Not ready: ${error.message}`).pipe(Effect.ensuring(Effect.sync(() => (ready = false)))) : Effect.void,
          notReady(error)
        ),
      onSuccess: () =>
        Effect.as(
          ready ? Effect.void : Effect.logInfo("Ready again").pipe(Effect.ensuring(Effect.sync(() => (ready = true)))),
          ok
        )
    }),
    Effect.catchAllDefect((defect) =>
      Effect.as(
        Effect.logError("The readiness check failed", defect),
        notReady(new StoreError.StoreError({ reason: "Unavailable", message: "The readiness check failed" }))
      )
    )
  )
  return Effect.cachedWithTTL(answer, readinessTimeout)
}
