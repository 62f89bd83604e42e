/**
 * The bundled bin loads at start only what serving needs: the reference page
 * (3 MB of script) and the OTLP exporter are chunks imported on first use;
 * the supervisor of `serve` is a bundle of its own with neither a store nor
 * the HTTP API, which workers load.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { bin } from "./support/CliProcess.js"

/** The files a module imports statically, its own included, followed through every chunk. */
const loadedAtStart = (entry: string): ReadonlySet<string> => {
  const seen = new Set<string>()
  const visit = (file: string): void => {
    if (seen.has(file)) return
    seen.add(file)
    const text = Fs.readFileSync(file, "utf8")
    for (const match of text.matchAll(/^import\s+(?:[^;]*?\s+from\s+)?"(\.[^"]+)"/gms)) {
      visit(Path.resolve(Path.dirname(file), match[1]!))
    }
  }
  visit(entry)
  return seen
}

describe("the bundled bin", () => {
  it("imports the reference page and the OTLP exporter only on first use", () => {
    const atStart = [...loadedAtStart(bin)]
    const all = [bin, ...Fs.readdirSync(Path.join(Path.dirname(bin), "chunks")).map((name) => Path.join(Path.dirname(bin), "chunks", name))]
    const holding = (needle: string) => all.filter((file) => Fs.readFileSync(file, "utf8").includes(needle))

    const page = holding("@scalar/api-reference")
    expect(page.length).toBeGreaterThan(0)
    expect(atStart.filter((file) => page.includes(file))).toEqual([])
    const otlp = holding("OTLPTraceExporter")
    expect(otlp.length).toBeGreaterThan(0)
    expect(atStart.filter((file) => otlp.includes(file))).toEqual([])
  })

  it("runs the supervisor of serve from a bundle of its own: no chunk, no store, no HTTP API, not loaded by a worker", () => {
    const supervisor = Path.join(Path.dirname(bin), "supervisor.js")
    expect([...loadedAtStart(supervisor)]).toEqual([supervisor])
    const text = Fs.readFileSync(supervisor, "utf8")
    expect(text).toContain("node_modules/effect/")
    for (const part of ["better-sqlite3", "@effect/platform", "@effect/cli", "@effect/sql", "prom-client", "http-adapter", "sqlite-store"]) {
      expect(text).not.toContain(part)
    }
    expect(loadedAtStart(bin).has(supervisor)).toBe(false)
  })
})
