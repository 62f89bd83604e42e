/**
 * The docs page in a real browser (headless Chromium driven by
 * playwright-core): loaded until the network is idle, it has asked no host
 * but the server (every request of its network log is the server's; any
 * other is recorded and aborted, so the test never leaves the machine), and
 * it shows the three operations. Chromium is Debian's `chromium` (`.ci/run`
 * installs it when missing), or the one `CHROMIUM_PATH` names.
 */
import { MemoryStore } from "@animal-store/memory-store"
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as Fs from "node:fs"
import { chromium } from "playwright-core"
import { start } from "./support/TestServer.js"

const candidates = [
  process.env["CHROMIUM_PATH"],
  "/usr/bin/chromium",
  "/usr/bin/chromium-browser",
  "/usr/bin/google-chrome",
  "/usr/bin/google-chrome-stable"
]

const executablePath = (): string => {
  const found = candidates.find((path) => path !== undefined && path !== "" && Fs.existsSync(path))
  if (found === undefined) {
    throw new Error("No Chromium found: install Debian's chromium (.ci/run does) or set CHROMIUM_PATH")
  }
  return found
}

const launch = Effect.acquireRelease(
  Effect.promise(() => chromium.launch({ executablePath: executablePath(), args: ["--no-sandbox"] })),
  (browser) => Effect.promise(() => browser.close())
)

describe("the docs page", () => {
  it.scoped("asks no host but the server, and shows the operations", () =>
    Effect.gen(function*() {
      const api = yield* start({ ports: MemoryStore.layer })
      const browser = yield* launch
      const { rendered, requested } = yield* Effect.promise(async () => {
        const page = await browser.newPage()
        const requested: Array<string> = []
        page.on("request", (request) => void requested.push(request.url()))
        // anything not the server's is aborted: recorded above, never sent
        await page.route("**/*", (route) =>
          new URL(route.request().url()).origin === api.origin ? route.continue() : route.abort())
        const response = await page.goto(`${api.origin}/v1/docs`, { waitUntil: "networkidle" })
        expect(response?.status()).toBe(200)
        return { rendered: await page.locator("body").innerText(), requested }
      })
      expect(requested[0]).toBe(`${api.origin}/v1/docs`)
      const elsewhere = requested.filter((url) => {
        const { origin, protocol } = new URL(url)
        return origin !== api.origin && protocol !== "data:" && protocol !== "blob:"
      })
      expect(elsewhere).toEqual([])
      for (const summary of ["List animals", "Add an animal", "Get an animal"]) expect(rendered).toContain(summary)
    }), 60_000)
})
