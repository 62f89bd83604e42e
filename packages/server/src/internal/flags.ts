import { Either } from "effect"

/** @internal */
export interface Parsed {
  readonly values: Readonly<Record<string, string>>
  readonly positionals: ReadonlyArray<string>
  readonly help: boolean
}

/**
 * Reads `--name value`, `--name=value`, `--help`/`-h` and positionals;
 * `Left` with the reason for an unknown flag or a flag without its value.
 * @internal
 */
export const parse = (args: ReadonlyArray<string>, names: ReadonlyArray<string>): Either.Either<Parsed, string> => {
  const values: Record<string, string> = {}
  const positionals: Array<string> = []
  let help = false
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!
    if (arg === "--help" || arg === "-h") {
      help = true
      continue
    }
    if (!arg.startsWith("-") || arg === "-") {
      positionals.push(arg)
      continue
    }
    const equals = arg.indexOf("=")
    const name = arg.slice(2, equals === -1 ? undefined : equals)
    if (!arg.startsWith("--") || !names.includes(name)) return Either.left(`unknown flag ${arg.split("=")[0]}`)
    const value = equals === -1 ? args[++i] : arg.slice(equals + 1)
    if (value === undefined || (equals === -1 && value.startsWith("--"))) return Either.left(`--${name} needs a value`)
    values[name] = value
  }
  return Either.right({ values, positionals, help })
}
