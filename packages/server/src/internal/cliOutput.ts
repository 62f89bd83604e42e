/**
 * What the command line prints around @effect/cli: styles only on a terminal
 * without `NO_COLOR` (record 0052), and a refused command line as one line.
 */
import * as HelpDoc from "@effect/cli/HelpDoc"
import * as ValidationError from "@effect/cli/ValidationError"
import * as Doc from "@effect/printer/Doc"
import type { Console } from "effect"
import { Effect } from "effect"
import type { Env } from "./cliOptions.js"

/** ANSI escape sequences (styles). */
const ansi = /\x1b\[[0-9;]*[A-Za-z]/g

/** Whether output may have styles: stdout is a terminal and `NO_COLOR` is unset or empty (https://no-color.org). */
export const colorOn = (env: Env): boolean => process.stdout.isTTY === true && (env.NO_COLOR ?? "") === ""

/**
 * The console @effect/cli prints on: `console`, its text plain unless `color`,
 * without its report of a refused command line (`refusal` replaces it).
 */
export const forCli = (console: Console.Console, color: boolean): Console.Console => ({
  ...console,
  log: (...args) => console.log(...(color ? args : args.map((arg) => typeof arg === "string" ? arg.replace(ansi, "") : arg))),
  error: () => Effect.void
})

/** A document's text without its styles. */
const plainText = (doc: HelpDoc.HelpDoc): string =>
  Doc.render(Doc.unAnnotate(HelpDoc.toAnsiDoc(doc)), { style: "pretty" })

/** The one line of a refused command line; `commands` names the commands that run. */
export const refusal = (error: ValidationError.ValidationError, argv: ReadonlyArray<string>, commands: string): string => {
  if (ValidationError.isCommandMismatch(error)) {
    const flag = argv.findIndex((arg) => arg.startsWith("-"))
    const words = (flag === -1 ? argv : argv.slice(0, Math.max(1, flag))).join(" ")
    return `unknown command "${words}" (${commands}); see --help`
  }
  return plainText(error.error).split("\n").find((line) => line.trim() !== "")?.trim() ??
    "invalid command line; see --help"
}
