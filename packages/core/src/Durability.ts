/**
 * When a client's request may be answered: once what it wrote is durable.
 *
 * A store that commits each write before the write returns needs nothing
 * here (the default). A store that commits writes in groups (SQLite: every
 * write of one turn of the event loop in one transaction) provides
 * `Durability`, so that an adapter can run a whole request before the
 * commit it waits for: under `deferCommit` the request's writes return at
 * once, and its answer is handed over once the group they are in has
 * committed. Outside `deferCommit`, every write and read of such a store
 * waits for its own commit, so an in-process caller never gets a result that
 * could still be rolled back either.
 *
 * @since 1.0.0
 */
import type { Exit } from "effect"
import { Context, Effect } from "effect"
import type { StoreError } from "./StoreError.js"

/**
 * @since 1.0.0
 * @category models
 */
export interface DurabilityService {
  /**
   * Runs `effect`, whose writes may return before they are committed, and
   * calls `onDurable` with its outcome once everything it wrote or read is
   * durable; with the `StoreError` of that commit instead when it failed (the
   * writes are then lost). The returned effect ends with `effect`, without
   * waiting for the commit: `onDurable` may be called later, outside any fiber.
   * Only the calls `effect` makes on its own fiber are deferred; a fiber it
   * forks waits for its own commits, as outside `deferCommit`.
   */
  readonly deferCommit: <A, E, R>(
    effect: Effect.Effect<A, E, R>,
    onDurable: (exit: Exit.Exit<A, E | StoreError>) => void
  ) => Effect.Effect<void, never, R>
}

/**
 * The durability of a store whose writes are committed when they return.
 *
 * @since 1.0.0
 * @category constructors
 */
export const committedOnReturn: DurabilityService = {
  deferCommit: (effect, onDurable) => Effect.map(Effect.exit(effect), onDurable)
}

/**
 * The store's durability; by default that of a store whose writes are
 * committed when they return (`committedOnReturn`).
 *
 * @since 1.0.0
 * @category tags
 */
export class Durability extends Context.Reference<Durability>()("@animal-store/core/Durability", {
  defaultValue: (): DurabilityService => committedOnReturn
}) {}
