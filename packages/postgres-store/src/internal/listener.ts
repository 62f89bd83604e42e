/**
 * A connection of its own that listens to one channel (`LISTEN`), opened
 * again after it breaks. `onNotice` runs on every notification, and also
 * each time the connection is (re)opened or lost, when notifications may
 * have been missed.
 *
 * @internal
 */
import type { Scope } from "effect"
import { Duration, Effect, Schedule } from "effect"
import Pg from "pg"

/** @internal */
export const listen = (
  url: string,
  channel: string,
  onNotice: () => void
): Effect.Effect<void, never, Scope.Scope> =>
  Effect.async<never, unknown>((resume) => {
    const client = new Pg.Client({ connectionString: url, application_name: "animal-store listener" })
    const lost = (cause: unknown) => resume(Effect.fail(cause))
    client.on("error", lost)
    client.on("end", () => lost(new Error("The listening connection ended")))
    client.on("notification", onNotice)
    client.connect()
      .then(() => client.query(`LISTEN ${Pg.escapeIdentifier(channel)}`))
      .then(onNotice, lost)
    return Effect.promise(() => client.end().catch(() => undefined))
  }).pipe(
    Effect.tapError(() => Effect.sync(onNotice)),
    Effect.retry(Schedule.spaced(Duration.seconds(1))),
    Effect.ignore,
    Effect.forkScoped,
    Effect.asVoid
  )
