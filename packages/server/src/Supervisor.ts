/**
 * `animal-store serve` as a supervisor and `--workers N` worker processes
 * (records 0035, 0045, 0046): the supervisor holds the sockets and hands each
 * connection to a serving worker in turn, restarts workers that exit and
 * replaces them on SIGHUP. It loads no store and no HTTP API.
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
 * Reads a number of workers, or `auto` (the cores available); `Left` with the reason otherwise.
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
 * The supervisor of `serve` in this process until it is stopped, as the exit
 * code: 0 after a signal, the first worker's when it ends before serving, 1
 * when a port cannot be listened on.
 *
 * @since 1.0.0
 * @category constructors
 */
export const supervise: Effect.Effect<number> = Workers.supervise()

/**
 * Runs `supervise` as this process's program (JSON lines on stdout), then exits with its code.
 *
 * @since 1.0.0
 * @category constructors
 */
export const main: () => void = Workers.main
