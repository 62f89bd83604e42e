/**
 * The steps taken on the command line before @effect/cli parses it, where it
 * cannot do the job (record 0066). The help is found before it too
 * (`cliHelp.ts`, record 0052).
 */
import { Either } from "effect"
import type { Env } from "./cliOptions.js"
import { CliError } from "./cliOptions.js"
import { logLevelVariable } from "./serveOptions.js"

/**
 * `serve`'s `--log-level`, taken off the command line: @effect/cli's built-in
 * `--log-level` (other names, and no switch to turn it off) would take it
 * first. `""` when it has no value.
 */
const takeLogLevel = (argv: ReadonlyArray<string>): { readonly argv: ReadonlyArray<string>; readonly value?: string } => {
  if (argv[0] !== "serve") return { argv }
  const rest: Array<string> = []
  let value: string | undefined
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!
    if (arg === "--") {
      rest.push(...argv.slice(i))
      break
    }
    if (arg === "--log-level") value = argv[++i] ?? ""
    else if (arg.startsWith("--log-level=")) value = arg.slice("--log-level=".length)
    else rest.push(arg)
  }
  return value === undefined ? { argv } : { argv: rest, value }
}

/** `help <words>` that names no command, as `<words> --help`: @effect/cli has no `help` command. */
const helpAsFlag = (argv: ReadonlyArray<string>): ReadonlyArray<string> =>
  argv[0] === "help" ? [...argv.slice(1), "--help"] : argv

/**
 * The command line and variables given to @effect/cli: `serve --log-level`
 * passed as its variable (the flag wins over the variable), refused without
 * a value.
 */
export const prepare = (
  argv: ReadonlyArray<string>,
  env: Env
): Either.Either<{ readonly argv: ReadonlyArray<string>; readonly env: Env }, CliError> => {
  const logLevel = takeLogLevel(argv)
  if (logLevel.value === "") {
    return Either.left(new CliError({ message: "--log-level: expected debug, info, warn, error or none" }))
  }
  return Either.right({
    argv: helpAsFlag(logLevel.argv),
    env: logLevel.value === undefined ? env : { ...env, [logLevelVariable]: logLevel.value }
  })
}
