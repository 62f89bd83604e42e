/**
 * The deprecation of `getPet` as its responses announce it, reported once per
 * process (a warning line and the `onDeprecation` hook).
 *
 * @since 1.0.0
 */
import { Effect } from "effect"
import * as Link from "./internal/link.js"
import type { HeaderReader } from "./RateLimit.js"

/**
 * @since 1.0.0
 * @category models
 */
export interface Notice {
  /** The deprecated operation. */
  readonly operation: string
  /** Since when it is deprecated (`Deprecation: @<unix seconds>`). */
  readonly deprecatedSince: Date | undefined
  /** When it stops working (`Sunset`). */
  readonly sunset: Date | undefined
  /** What replaces it (the `successor-version` link). */
  readonly successor: string | undefined
}

const dateOf = (text: string | undefined): Date | undefined => {
  if (text === undefined) return undefined
  const seconds = /^@(-?\d+)$/.exec(text.trim())
  const date = seconds === null ? new Date(text) : new Date(Number(seconds[1]) * 1000)
  return Number.isNaN(date.getTime()) ? undefined : date
}

/**
 * The notice a response carries, when it has a `Deprecation` or `Sunset` header.
 *
 * @since 1.0.0
 * @category parsing
 */
export const fromHeaders = (operation: string, header: HeaderReader): Notice | undefined => {
  const deprecation = header("deprecation")
  const sunset = header("sunset")
  if (deprecation === undefined && sunset === undefined) return undefined
  return {
    operation,
    deprecatedSince: dateOf(deprecation),
    sunset: dateOf(sunset),
    successor: Link.target(header("link"), "successor-version")
  }
}

const reportedKey = Symbol.for("@animal-store/client/Deprecation/reported")
const reported = globalThis as { [reportedKey]?: Set<string> }

/**
 * Reports `notice` (a warning line, then `hook`) unless its operation was reported before.
 *
 * @since 1.0.0
 * @category reporting
 */
export const reportOnce = (notice: Notice, hook: ((notice: Notice) => void) | undefined): Effect.Effect<void> =>
  Effect.suspend(() => {
    const operations = (reported[reportedKey] ??= new Set())
    if (operations.has(notice.operation)) return Effect.void
    operations.add(notice.operation)
    return Effect.logWarning(
      `Animal Store: ${notice.operation} is deprecated` +
        (notice.sunset === undefined ? "" : ` and stops working on ${notice.sunset.toISOString()}`) +
        (notice.successor === undefined ? "" : `; use ${notice.successor}`)
    ).pipe(
      Effect.annotateLogs({
        operation: notice.operation,
        sunset: notice.sunset?.toISOString() ?? "",
        successor: notice.successor ?? ""
      }),
      Effect.zipRight(hook === undefined ? Effect.void : Effect.sync(() => hook(notice)))
    )
  })

/**
 * Forgets what was reported, so the next notice is reported again (tests).
 *
 * @since 1.0.0
 * @category reporting
 */
export const resetReported = (): void => {
  reported[reportedKey]?.clear()
}
