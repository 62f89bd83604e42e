/**
 * `--trusted-proxies` on the shipped bin: addresses and CIDR ranges, IPv4 and
 * IPv6; a bad entry stops the start with one line; behind a trusted range,
 * each forwarded client has its own bucket.
 */
import { describe, expect, it } from "@effect/vitest"
import { runCli, startServe } from "./support/CliProcess.js"

const expectOneLineFailure = (finished: { code: number | null; stderr: string }, pattern: RegExp) => {
  expect(finished.code).not.toBe(0)
  expect(finished.code).not.toBeNull()
  const lines = finished.stderr.split("\n").filter((line) => line.length > 0)
  expect(lines).toHaveLength(1)
  expect(lines[0]).toMatch(pattern)
  expect(finished.stderr).not.toMatch(/\n\s+at /)
}

describe.concurrent("--trusted-proxies", () => {
  it("refuses an entry that is neither an address nor a CIDR range, with one line", async () => {
    const [flag, variable, prefix] = await Promise.all([
      runCli(["serve", "--port", "0", "--store", "memory", "--trusted-proxies", "10.0.0.0/8,proxy.local"]),
      runCli(["serve", "--port", "0", "--store", "memory"], { ANIMAL_STORE_TRUSTED_PROXIES: "2001:db8::/32, ::1/129" }),
      runCli(["serve", "--port", "0", "--store", "memory", "--trusted-proxies", "10.0.0.0/33"])
    ])
    expectOneLineFailure(flag, /^animal-store: --trusted-proxies: expected an IP address or a CIDR range .*got "proxy\.local"$/)
    expectOneLineFailure(variable, /^animal-store: --trusted-proxies: .*got "::1\/129"$/)
    expectOneLineFailure(prefix, /got "10\.0\.0\.0\/33"$/)
  })

  it("behind a trusted range, each client of X-Forwarded-For has its own bucket", async () => {
    const serving = await startServe([
      "--store",
      "memory",
      "--access-log",
      "off",
      "--anonymous-per-minute",
      "2",
      "--trusted-proxies",
      "2001:db8::/32,127.0.0.0/8"
    ])
    try {
      const remaining = async (forwardedFor: string) =>
        (await fetch(`${serving.origin}/v1/pets`, { headers: { "x-forwarded-for": forwardedFor } })).headers.get(
          "x-ratelimit-remaining"
        )
      expect(await remaining("198.51.100.1")).toBe("1")
      expect(await remaining("198.51.100.1")).toBe("0")
      expect(await remaining("198.51.100.2, 127.0.0.9")).toBe("1")
      expect(await remaining("2001:db8::7, 198.51.100.2")).toBe("0")
    } finally {
      serving.child.kill("SIGTERM")
      await serving.exited
    }
  })
})
