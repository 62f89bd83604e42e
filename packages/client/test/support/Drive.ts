import { FetchHttpClient, HttpClient } from "@effect/platform"
import { Chunk, Clock, Effect, Fiber, Layer, Option, TestClock } from "effect"

/**
 * Runs `effect` while moving the `TestClock` to the next sleep whenever one
 * is pending (the client waiting for `Retry-After` or a reset); between
 * moves the real event loop runs, so sockets make progress. Time moves only
 * when someone waits: nothing is sent earlier than it would be for real.
 */
export const driven = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.gen(function*() {
    const fiber = yield* Effect.fork(effect)
    for (;;) {
      if (Option.isSome(yield* Fiber.poll(fiber))) return yield* Fiber.join(fiber)
      const sleeps = yield* TestClock.sleeps()
      if (Chunk.isNonEmpty(sleeps)) {
        const now = yield* Clock.currentTimeMillis
        // At least a millisecond: a wake-up time a fraction of a millisecond ahead would round to no move at all.
        yield* TestClock.adjust(Math.max(1, Math.ceil(Math.min(...sleeps) - now)))
      } else {
        yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 1)))
      }
    }
  })

/** The global fetch client, recording the (test) clock's time of every request sent. */
export const recordingFetch = (sent: Array<{ readonly at: number; readonly url: string }>) =>
  Layer.effect(
    HttpClient.HttpClient,
    Effect.map(HttpClient.HttpClient, (client) =>
      HttpClient.tapRequest(client, (request) =>
        Effect.map(Clock.currentTimeMillis, (at) => {
          sent.push({ at, url: request.url })
        })))
  ).pipe(Layer.provide(FetchHttpClient.layer))
