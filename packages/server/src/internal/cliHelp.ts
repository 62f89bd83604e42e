/**
 * The help of `animal-store` and its commands (record 0052): @effect/cli's own
 * (`Command.getHelp`) without its generic lines (each description names its
 * variable and default) and its built-in options but `--help` and `--version`
 * (its `--log-level` would shadow `serve`'s). Plain text unless `color`.
 */
import * as CliConfig from "@effect/cli/CliConfig"
import * as Command from "@effect/cli/Command"
import * as HelpDoc from "@effect/cli/HelpDoc"
import * as Span from "@effect/cli/HelpDoc/Span"
import * as Usage from "@effect/cli/Usage"
import * as Doc from "@effect/printer/Doc"
import { Array as Arr } from "effect"

/** A command that help can be shown for, by its path (`["keys", "create"]`). */
export interface Entry {
  readonly path: ReadonlyArray<string>
  /** Whether it only groups commands (a bare `animal-store keys` shows its help). */
  readonly group: boolean
  readonly usage: () => Usage.Usage
  readonly help: () => HelpDoc.HelpDoc
}

/** What @effect/cli says of every option or argument of a kind, not of this one. */
const generic =
  /^(A user-defined piece of text( that is confidential)?\.|A true or false value\.|An integer\.|A floating point number\.|One of the following: .*|This option can be set from environment variables\.|This setting is optional\..*)$/

const config = CliConfig.make({ showBuiltIns: false })

/** `command`, at `path`, as help sees it. */
export const entry = <Name extends string, R, E, A>(
  path: ReadonlyArray<string>,
  command: Command.Command<Name, R, E, A>,
  group: boolean
): Entry => ({ path, group, usage: () => Command.getUsage(command), help: () => Command.getHelp(command, config) })

const spanText = (span: Span.Span): string => {
  switch (span._tag) {
    case "Text":
    case "URI":
      return span.value
    case "Sequence":
      return spanText(span.left) + spanText(span.right)
    default:
      return spanText(span.value)
  }
}

/** `doc` without the generic paragraphs of its description lists. */
const tidy = (doc: HelpDoc.HelpDoc): HelpDoc.HelpDoc => {
  switch (doc._tag) {
    case "Paragraph":
      return generic.test(spanText(doc.value).trim()) ? HelpDoc.empty : doc
    case "Sequence":
      return HelpDoc.sequence(tidy(doc.left), tidy(doc.right))
    case "DescriptionList":
      return HelpDoc.descriptionList(Arr.map(doc.definitions, ([span, block]): [Span.Span, HelpDoc.HelpDoc] => [span, tidy(block)]))
    default:
      return doc
  }
}

/** The built-in options kept, for `command` at `path`. */
const builtIns = (path: ReadonlyArray<string>): HelpDoc.HelpDoc =>
  HelpDoc.descriptionList([
    [Span.strong(Span.text("-h, --help")), HelpDoc.p("show this help")],
    ...(path.length === 0 ? [[Span.strong(Span.text("--version")), HelpDoc.p("print the version")]] : [])
  ] as [[Span.Span, HelpDoc.HelpDoc], ...Array<[Span.Span, HelpDoc.HelpDoc]>])

/** The blocks of `doc`, in order. */
const blocksOf = (doc: HelpDoc.HelpDoc): ReadonlyArray<HelpDoc.HelpDoc> =>
  doc._tag === "Sequence" ? [...blocksOf(doc.left), ...blocksOf(doc.right)] : doc._tag === "Empty" ? [] : [doc]

/** The text of the DESCRIPTION section of `doc`. */
const description = (doc: HelpDoc.HelpDoc): string => {
  const blocks = blocksOf(doc)
  const at = blocks.findIndex((block) => block._tag === "Header" && spanText(block.value) === "DESCRIPTION")
  const next = blocks[at + 1]
  return at !== -1 && next?._tag === "Paragraph" ? spanText(next.value) : ""
}

/** A group's help: its commands, one a line, each with what it does. */
const groupHelp = (group: Entry, entries: ReadonlyArray<Entry>): HelpDoc.HelpDoc => {
  const below = entries.filter((entry) =>
    entry.path.length > group.path.length && group.path.every((word, i) => entry.path[i] === word)
  )
  const names = below.map((entry) => entry.path.slice(group.path.length).join(" "))
  const width = Math.max(...names.map((name) => name.length))
  const lines = below.map((entry, i) => HelpDoc.p(`${names[i]!.padEnd(width)}  ${description(entry.help())}`))
  return HelpDoc.blocks([
    HelpDoc.h1("DESCRIPTION"),
    HelpDoc.p(description(group.help())),
    ...(Arr.isNonEmptyReadonlyArray(lines) ? [HelpDoc.h1("COMMANDS"), HelpDoc.enumeration(lines)] : []),
    HelpDoc.h1("OPTIONS")
  ])
}

/** The help of `entry` (one of `entries`), in `name version`'s program. */
export const document = (name: string, version: string, entry: Entry, entries: ReadonlyArray<Entry>): HelpDoc.HelpDoc => {
  const command = [name, ...entry.path].join(" ")
  const usages = entry.group
    ? [HelpDoc.p(`$ ${command} <command> [options]`)]
    : Usage.enumerate(entry.usage(), config).map((span) =>
      HelpDoc.p(Span.concat(Span.text(`$ ${[name, ...entry.path.slice(0, -1)].join(" ")} `), span))
    )
  return HelpDoc.blocks([
    HelpDoc.p(`${name} ${version}`),
    HelpDoc.h1("USAGE"),
    ...usages,
    entry.group ? groupHelp(entry, entries) : tidy(entry.help()),
    builtIns(entry.path)
  ])
}

/** `doc` as text: with ANSI styles when `color`, else plain. */
export const render = (doc: HelpDoc.HelpDoc, color: boolean): string =>
  color ? HelpDoc.toAnsiText(doc) : Doc.render(Doc.unAnnotate(HelpDoc.toAnsiDoc(doc)), { style: "pretty" })

/**
 * The command whose help `argv` asks for, if it does: `help [command]`,
 * `-h`/`--help` (before any `--`), or a command that only groups others,
 * alone. `undefined` otherwise (a command line to run, or an unknown command).
 * Found before @effect/cli parses: it would print its own help (record 0066).
 */
export const requested = (argv: ReadonlyArray<string>, entries: ReadonlyArray<Entry>): Entry | undefined => {
  const asHelp = argv[0] === "help"
  const args = asHelp ? argv.slice(1) : argv
  const end = args.indexOf("--")
  const before = end === -1 ? args : args.slice(0, end)
  const find = (path: ReadonlyArray<string>) => entries.find((entry) => entry.path.join(" ") === path.join(" "))
  let entry = find([])
  if (entry === undefined) return undefined
  for (const word of before) {
    if (word.startsWith("-")) break
    const next = find([...entry.path, word])
    if (next === undefined) break
    entry = next
  }
  const rest = before.slice(entry.path.length)
  // A word a group does not know is an unknown command: @effect/cli's refusal says so.
  if (entry.group && rest.some((word) => !word.startsWith("-"))) return undefined
  const asked = asHelp || rest.includes("--help") || rest.includes("-h")
  return asked || (entry.group && rest.length === 0) ? entry : undefined
}
