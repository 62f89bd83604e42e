/**
 * The `animal-store` command tree on @effect/cli (`serve`, `keys ...`), the
 * commands its help is shown for, and a command line run through it.
 */
import * as Command from "@effect/cli/Command"
import * as ValidationError from "@effect/cli/ValidationError"
import type { Console } from "effect"
import { Effect } from "effect"
import * as CliHelp from "./cliHelp.js"
import type { Env } from "./cliOptions.js"
import { CliError, configProvider } from "./cliOptions.js"
import * as CliOutput from "./cliOutput.js"
import * as KeysCommand from "./keysCommand.js"
import * as ServeCommand from "./serveCommand.js"

/** The program's name. */
const name = "animal-store"

/** The version `--version` prints (the package's). */
export const version = "1.0.0"

const command = Command.make(name).pipe(
  Command.withDescription("The Animal Store server and its keys"),
  Command.withSubcommands([ServeCommand.command, KeysCommand.command])
)

/** The commands `--help` is shown for. */
export const helpEntries: ReadonlyArray<CliHelp.Entry> = [
  CliHelp.entry([], command, true),
  CliHelp.entry(["serve"], ServeCommand.command, false),
  CliHelp.entry(["keys"], KeysCommand.command, true),
  ...KeysCommand.helpEntries
]

/** The commands that run, as a refusal names them: "serve, keys create, ... or keys unban". */
const commandNames = ((names: ReadonlyArray<string>) => `${names.slice(0, -1).join(", ")} or ${names.at(-1)}`)(
  helpEntries.filter((entry) => !entry.group).map((entry) => entry.path.join(" "))
)

/** The help of `entry`, as text: styled when `color`. */
export const helpText = (entry: CliHelp.Entry, color: boolean): string =>
  CliHelp.render(CliHelp.document(name, version, entry, helpEntries), color)

/**
 * Runs `args` (the command line `argv` as prepared) through @effect/cli, the
 * flags over `env`; the commands print on `console`. A refused command line
 * or a defect fails with its one line.
 */
export const run = (
  argv: ReadonlyArray<string>,
  args: ReadonlyArray<string>,
  env: Env,
  console: Console.Console,
  color: boolean
) =>
  Command.run(
    Command.transformHandler(command, (handler) => Effect.withConsole(handler, console)),
    { name, version }
  )(["node", name, ...args]).pipe(
    Effect.withConsole(CliOutput.forCli(console, color)),
    Effect.withConfigProvider(configProvider(env)),
    Effect.catchIf(ValidationError.isValidationError, (error) =>
      Effect.fail(new CliError({ message: CliOutput.refusal(error, argv, commandNames) }))),
    Effect.catchAllDefect((defect) =>
      Effect.fail(new CliError({ message: `unexpected error: ${defect instanceof Error ? defect.message : String(defect)}` }))
    )
  )
