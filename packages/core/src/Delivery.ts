/**
 * When an answer may be delivered: once what the store wrote for it is durable
 * (decisions.md, Faults; record 0068). A store that commits several calls'
 * writes together lets a caller that waits here compute its answer first.
 *
 * @since 1.0.0
 */
import { Context, Effect, Exit, FiberRef } from "effect"
import type { StoreError } from "./StoreError.js"

/**
 * @since 1.0.0
 * @category models
 */
export interface DeliveryService {
  /**
   * Calls `deliver` once every write the store made so far is durable, with
   * `undefined`, or lost, with the `StoreError` that lost it; at once when none waits.
   */
  readonly whenDurable: (deliver: (lost: StoreError | undefined) => void) => void
}

/**
 * @since 1.0.0
 * @category tags
 */
export class Delivery extends Context.Tag("@animal-store/core/Delivery")<Delivery, DeliveryService>() {}

/**
 * Set on a fiber whose caller delivers nothing before `whenDurable` says so: the
 * store may then answer its writes before they are durable. Off by default.
 *
 * @since 1.0.0
 * @category fiber refs
 */
export const held: FiberRef.FiberRef<boolean> = FiberRef.unsafeMake(false)

/**
 * The delivery of a store whose writes are durable when its calls complete.
 *
 * @since 1.0.0
 * @category constants
 */
export const immediate: DeliveryService = { whenDurable: (deliver) => deliver(undefined) }

/**
 * Waits until every write made so far is durable: fails with the `StoreError` that lost one.
 *
 * @since 1.0.0
 * @category combinators
 */
export const durable = (delivery: DeliveryService): Effect.Effect<void, StoreError> =>
  Effect.suspend(() => {
    let settled: Exit.Exit<void, StoreError> | undefined
    let resume: ((settled: Exit.Exit<void, StoreError>) => void) | undefined
    delivery.whenDurable((lost) => {
      const exit = lost === undefined ? Exit.void : Exit.fail(lost)
      if (resume === undefined) settled = exit
      else resume(exit)
    })
    // Nothing waited: no suspension.
    return settled ?? Effect.async<void, StoreError>((resumeWith) => {
      resume = resumeWith
    })
  })
