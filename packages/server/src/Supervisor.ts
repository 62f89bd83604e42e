/**
 * `animal-store serve` runs as two kinds of processes: the supervisor, the
 * process a user starts, and `--workers N` workers (node:cluster, this
 * program again) that serve the API on one store (SQLite or PostgreSQL; the
 * memory store with one worker only). The supervisor holds the listening
 * sockets (the API's and the operations listener's) and hands each
 * connection it accepts to a serving worker in turn: a connection crosses it
 * once, its requests never. It learns the settings from the first worker,
 * which reads the command line and prepares the store (migrations,
 * provisioned keys) before the others start. It restarts a worker that
 * exits (logged, with a delay that grows while workers keep dying soon after
 * they start); while no worker serves it answers every request with 503
 * `service_unavailable` and `Retry-After` (`/healthz` 200). SIGHUP replaces
 * the workers one by one (with N > 1); SIGTERM/SIGINT (and SIGHUP with one
 * worker) stop accepting and drain them all. The supervisor loads no store
 * and no HTTP API: the bin imports it alone.
 *
 * @since 1.0.0
 */
import type { Effect } from "effect"
import { Either } from "effect"
import * as Os from "node:os"
import * as Workers from "./internal/workers.js"
import type * as StandaloneServer from "./StandaloneServer.js"

/**
 * The server's options and how many processes serve.
 *
 * @since 1.0.0
 * @category models
 */
export interface Options extends StandaloneServer.Options {
  /** Worker processes serving the port; default 1. */
  readonly workers?: number | undefined
}

export {
  /**
   * The workers cannot serve this store, or a port cannot be listened on.
   *
   * @since 1.0.0
   * @category errors
   */
  WorkersError
} from "./internal/workers.js"

/**
 * The most workers `parseWorkers` accepts.
 *
 * @since 1.0.0
 * @category constants
 */
export const maxWorkers = 1024

/**
 * Reads a number of workers, or `auto`: the cores available
 * (`os.availableParallelism()`); `Left` with the reason otherwise.
 *
 * @since 1.0.0
 * @category constructors
 */
export const parseWorkers = (text: string): Either.Either<number, string> =>
  text === "auto"
    ? Either.right(Math.min(maxWorkers, Os.availableParallelism()))
    : /^[0-9]+$/.test(text) && Number(text) >= 1 && Number(text) <= maxWorkers
    ? Either.right(Number(text))
    : Either.left(`expected a number of processes from 1 to ${maxWorkers} or auto, got "${text}"`)

/**
 * The supervisor of `serve` in this process, forking the workers from this
 * program with its arguments, until it is stopped: the exit code. 0 after a
 * stop by signal; the first worker's when it ends before it serves (its
 * command line printed a help or was refused); 1 when a port cannot be
 * listened on.
 *
 * @since 1.0.0
 * @category constructors
 */
export const supervise: Effect.Effect<number> = Workers.supervise()

/**
 * Runs `supervise` as this process's program, its log JSON lines on
 * stdout, then exits with its code.
 *
 * @since 1.0.0
 * @category constructors
 */
export const main: () => void = Workers.main
