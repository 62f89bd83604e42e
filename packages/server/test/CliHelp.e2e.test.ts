/**
 * The help and the refusals of the shipped `animal-store` as a terminal, a
 * pipe and `NO_COLOR` show them (decisions.md "Operations": plain text when
 * not a terminal or with `NO_COLOR`, each option once with a real description).
 */
import { describe, expect, it } from "@effect/vitest"
import * as ChildProcess from "node:child_process"
import * as Net from "node:net"
import * as Cli from "../src/Cli.js"
import { bin, cleanEnv, runCli } from "./support/CliProcess.js"

const escape = "\x1b["

/** Runs the CLI in a pseudo-terminal (util-linux `script`), its output as the terminal got it. */
const inTerminal = (args: ReadonlyArray<string>, env: Record<string, string> = {}) =>
  new Promise<string>((resolve, reject) => {
    const command = [process.execPath, bin, ...args].map((word) => `'${word}'`).join(" ")
    const child = ChildProcess.spawn("script", ["-qec", command, "/dev/null"], { env: cleanEnv(env) })
    let out = ""
    child.stdout.on("data", (chunk) => (out += chunk))
    child.on("error", reject)
    child.on("close", (code) => (code === 0 ? resolve(out) : reject(new Error(`exit ${code}: ${out}`))))
  })

/** The options the help lists (its OPTIONS section's headings), in order. */
const listed = (help: string): ReadonlyArray<string> => {
  const options = help.slice(help.indexOf("\nOPTIONS\n"))
  return [...options.matchAll(/^(-h, --help|--[a-z-]+)(?: \S+)?$/gm)].map((match) => match[1]!)
}

const helps = [["serve", "--help"], ["--help"], [], ["keys"], ["keys", "create", "--help"], ["help", "keys", "show"]]

describe.concurrent("the help of animal-store", () => {
  it("is plain text when piped and under NO_COLOR, styled only on a terminal", async () => {
    for (const args of helps) {
      const piped = await runCli(args)
      expect(piped.code, args.join(" ")).toBe(0)
      expect(piped.stdout, args.join(" ")).toContain("USAGE")
      expect(piped.stdout, args.join(" ")).not.toContain(escape)
      const noColor = await inTerminal(args, { NO_COLOR: "1" })
      expect(noColor, args.join(" ")).toContain("USAGE")
      expect(noColor, args.join(" ")).not.toContain(escape)
    }
    // the terminal is seen: without NO_COLOR the headings are styled
    expect(await inTerminal(["serve", "--help"])).toContain(escape)
    expect(await inTerminal(["serve", "--help"], { NO_COLOR: "" })).toContain(escape)
  }, 120_000)

  it("of serve lists each option once, each with what it does, and no generic text", async () => {
    const { stdout: help } = await runCli(["serve", "--help"])
    const options = listed(help)
    expect(options).toEqual([...new Set(options)])
    expect([...options].sort()).toEqual(
      [...Object.keys(Cli.serveFlags).map((flag) => `--${flag}`), "--log-level", "--create", "-h, --help"].sort()
    )
    for (const option of options) {
      const at = help.indexOf(`\n${option}`, help.indexOf("\nOPTIONS\n"))
      const description = help.slice(at).split("\n")[3] ?? ""
      expect(description, option).toMatch(/^ {2}\S/)
    }
    for (const args of helps) {
      const { stdout } = await runCli(args)
      expect(stdout, args.join(" ")).not.toMatch(/A user-defined piece of text|A true or false value|This setting is optional/)
      expect(stdout.match(/^--log-level/gm)?.length ?? 0, args.join(" ")).toBeLessThanOrEqual(1)
    }
  }, 120_000)
})

describe("a port that is taken", () => {
  it("is named: the operations port as the operations port, with its number", async () => {
    const taken = Net.createServer()
    await new Promise<void>((resolve) => taken.listen(0, "127.0.0.1", resolve))
    const port = (taken.address() as Net.AddressInfo).port
    try {
      const [ops, main] = await Promise.all([
        runCli(["serve", "--port", "0", "--store", "memory", "--ops-port", String(port)]),
        runCli(["serve", "--port", String(port), "--store", "memory", "--ops-port", "0"])
      ])
      const opsLines = ops.stderr.split("\n").filter((line) => line !== "")
      expect(ops.code).toBe(1)
      expect(opsLines).toEqual([
        expect.stringMatching(new RegExp(`^animal-store: cannot listen on the operations port \\(--ops-port\\) 127\\.0\\.0\\.1:${port}: .*EADDRINUSE`))
      ])
      expect(main.code).toBe(1)
      expect(main.stderr).toMatch(new RegExp(`^animal-store: cannot listen on 127\\.0\\.0\\.1:${port}: .*EADDRINUSE`))
      expect(main.stderr).not.toContain("operations")
    } finally {
      taken.close()
    }
  }, 60_000)
})
