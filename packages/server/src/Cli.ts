/**
 * The `animal-store` command line (decisions.md "Running it"), on @effect/cli:
 * `serve` runs the standalone server, each flag over its environment variable;
 * `keys ...` manages the keys of a store. A command line that cannot run
 * prints one line on stderr and fails. `--help` on every command, `--version`.
 *
 * @since 1.0.0
 */
import type * as CliApp from "@effect/cli/CliApp"
import { Effect, Either } from "effect"
import * as CliArgv from "./internal/cliArgv.js"
import * as CliCommand from "./internal/cliCommand.js"
import * as CliHelp from "./internal/cliHelp.js"
import type { CliError, Env } from "./internal/cliOptions.js"
import * as CliOutput from "./internal/cliOutput.js"

export {
  /**
   * A command line that cannot run: the one line to print.
   *
   * @since 1.0.0
   * @category errors
   */
  CliError,
  /**
   * The configuration the flags fall back to: `env`, an empty variable being unset.
   *
   * @since 1.0.0
   * @category constructors
   */
  configProvider,
  /**
   * The defaults of `serve` that are the command line's own.
   *
   * @since 1.0.0
   * @category constants
   */
  serveDefaults,
  /**
   * The flags of `serve` and their environment variables.
   *
   * @since 1.0.0
   * @category constants
   */
  serveFlags
} from "./internal/cliOptions.js"

export type {
  /**
   * The environment variables read, by name.
   *
   * @since 1.0.0
   * @category models
   */
  Env
} from "./internal/cliOptions.js"

export {
  /**
   * The version `--version` prints (the package's).
   *
   * @since 1.0.0
   * @category constants
   */
  version
} from "./internal/cliCommand.js"

export {
  /**
   * The options of `serve`: its flags, each over its variable, and the keys
   * of `ANIMAL_STORE_API_KEYS`.
   *
   * @since 1.0.0
   * @category options
   */
  serveOptions
} from "./internal/serveOptions.js"

export type {
  /**
   * What `serve` runs: the server and, when `ops` is set, its operations
   * listener (`--ops-port`, `--ops-host`).
   *
   * @since 1.0.0
   * @category models
   */
  ServeOptions
} from "./internal/serveOptions.js"

/**
 * Parses and runs a command line (without the program name) with the flags'
 * variables read from `env`. A refusal or a failure prints one line on
 * stderr and fails with the `CliError` (so the process exits non-zero,
 * without a trace).
 *
 * @since 1.0.0
 * @category constructors
 */
export const run = (argv: ReadonlyArray<string>, env: Env): Effect.Effect<void, CliError, CliApp.CliApp.Environment> =>
  Effect.consoleWith((console) => {
    const color = CliOutput.colorOn(env)
    const help = CliHelp.requested(argv, CliCommand.helpEntries)
    const ran = Either.match(CliArgv.prepare(argv, env), {
      onLeft: (error) => Effect.fail(error),
      onRight: (prepared) =>
        help !== undefined
          ? console.log(CliCommand.helpText(help, color))
          : CliCommand.run(argv, prepared.argv, prepared.env, console, color)
    })
    return Effect.tapError(ran, (error) => console.error(`animal-store: ${error.message}`))
  })
