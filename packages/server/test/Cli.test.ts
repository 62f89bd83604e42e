import * as CliConfig from "@effect/cli/CliConfig"
import * as Options from "@effect/cli/Options"
import * as NodeContext from "@effect/platform-node/NodeContext"
import { describe, expect, it } from "@effect/vitest"
import { PlanRateLimiter } from "@animal-store/core"
import { Console, Effect, Either, Layer, Option, Redacted } from "effect"
import * as Fs from "node:fs"
import * as Net from "node:net"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"
import * as Cli from "../src/Cli.js"
import * as StandaloneServer from "../src/StandaloneServer.js"
import * as StoreLocation from "../src/StoreLocation.js"
import { temporaryDatabase } from "./support/temporaryDatabase.js"

/** Creates the SQLite store at `filename`, as `serve` does. */
const createStore = (filename: string) => Effect.scoped(Layer.build(StoreLocation.layer({ _tag: "Sqlite", filename })))

/** `serve`'s options as the command line reads them from `argv` over `env`. */
const parseServe = (argv: ReadonlyArray<string>, env: Cli.Env = {}) =>
  Options.processCommandLine(Cli.serveOptions, argv, CliConfig.defaultConfig).pipe(
    Effect.withConfigProvider(Cli.configProvider(env)),
    Effect.provide(NodeContext.layer),
    Effect.either,
    Effect.runSync
  )

const serveOptions = (argv: ReadonlyArray<string>, env: Cli.Env = {}): StandaloneServer.Options => {
  const [error, leftover, { cursorSecret, ...options }] = Either.getOrThrow(parseServe(argv, env))
  expect(Option.isNone(error) && leftover.length === 0).toBe(true)
  // the secret is `Redacted`: compare its value
  return cursorSecret === undefined ? options : { ...options, cursorSecret: Redacted.value(cursorSecret as Redacted.Redacted<string>) }
}

const captureConsole = Effect.map(Console.consoleWith(Effect.succeed), (live) => {
  const out: Array<string> = []
  const err: Array<string> = []
  const console: Console.Console = {
    ...live,
    log: (...args) => Effect.sync(() => void out.push(args.join(" ").replace(/\x1b\[[0-9;]*m/g, ""))),
    error: (...args) => Effect.sync(() => void err.push(args.join(" ")))
  }
  return { out, err, console }
})

/** Runs a command line in-process; a command that would serve is cut short (it must not happen here). */
const run = (argv: ReadonlyArray<string>, env: Cli.Env = {}) =>
  Effect.flatMap(captureConsole, ({ console, err, out }) =>
    Cli.run(argv, env).pipe(
      Effect.timeoutFail({ duration: "20 seconds", onTimeout: () => new Error(`still running: ${argv.join(" ")}`) }),
      Effect.withConsole(console),
      Effect.provide(NodeContext.layer),
      Effect.either,
      Effect.map((result) => ({ result, out, err }))
    ))

/** The one line a refused command line prints (without the program's name), checking it is one line. */
const failure = (argv: ReadonlyArray<string>, env: Cli.Env = {}): Promise<string> =>
  Effect.runPromise(run(argv, env)).then(({ err, result }) => {
    expect(result._tag).toBe("Left")
    expect(err).toHaveLength(1)
    expect(err[0]).not.toContain("\n")
    return err[0]!.replace(/^animal-store: /, "")
  })

describe("animal-store serve options", () => {
  it("default to the SQLite file ./data/animal-store.db on 127.0.0.1:8080 in production", () => {
    const options = serveOptions([])
    expect(options).toMatchObject({
      host: "127.0.0.1",
      port: 8080,
      store: { _tag: "Sqlite", filename: "./data/animal-store.db" },
      access: { environment: "production", banAfter: 10, banSeconds: 900, anonymousPerMinute: 60, anonymousAddresses: 100_000 },
      servers: {},
      trustedProxies: [],
      corsOrigins: [],
      accessLog: true,
      keys: []
    })
  })

  const values: Record<keyof typeof Cli.serveFlags, readonly [string, string]> = {
    "port": ["9090", "9191"],
    "host": ["0.0.0.0", "::1"],
    "store": ["memory", "sqlite:/tmp/x.db"],
    "pool-size": ["5", "7"],
    "statement-timeout": ["1000", "0"],
    "env": ["staging", "production"],
    "ban-after": ["3", "4"],
    "ban-seconds": ["30", "40"],
    "anonymous-per-minute": ["5", "6"],
    "anonymous-addresses": ["1000", "2000"],
    "base-url": ["https://a.example/v1", "https://b.example/v1"],
    "staging-base-url": ["https://s.example/v1", "https://t.example/v1"],
    "trusted-proxies": ["10.0.0.1", "10.0.0.2,10.0.0.3"],
    "cors-origins": ["https://app.example.com", "*"],
    "cursor-secret": ["a".repeat(32), "b".repeat(40)],
    "access-log": ["off", "on"],
    "ops-port": ["9464", "9465"],
    "ops-host": ["0.0.0.0", "::1"],
    "workers": ["2", "3"]
  }

  for (const [flag, variable] of Object.entries(Cli.serveFlags) as Array<[keyof typeof Cli.serveFlags, string]>) {
    it(`--${flag} is read from ${variable}, and the flag wins`, () => {
      const [fromEnv, fromFlag] = values[flag]
      // The pool settings apply to a PostgreSQL store only.
      const base = flag === "pool-size" || flag === "statement-timeout" ? ["--store", "postgres://u:p@db.example/animals"] : []
      const viaEnv = serveOptions(base, { [variable]: fromEnv })
      const viaFlag = serveOptions([...base, `--${flag}`, fromFlag], { [variable]: fromEnv })
      const viaEquals = serveOptions([...base, `--${flag}=${fromFlag}`], { [variable]: fromEnv })
      expect(viaEnv).not.toEqual(serveOptions(base))
      expect(viaFlag).not.toEqual(viaEnv)
      expect(viaEquals).toEqual(viaFlag)
    })
  }

  it("--create is off unless given or ANIMAL_STORE_CREATE says on; the flag wins", () => {
    expect(serveOptions([]).create).toBe(false)
    expect(serveOptions(["--create"]).create).toBe(true)
    expect(serveOptions([], { ANIMAL_STORE_CREATE: "1" }).create).toBe(true)
    expect(serveOptions([], { ANIMAL_STORE_CREATE: "on" }).create).toBe(true)
    expect(serveOptions(["--create", "false"], { ANIMAL_STORE_CREATE: "true" }).create).toBe(false)
    expect(serveOptions([], { ANIMAL_STORE_CREATE: "" }).create).toBe(false)
  })

  it("an empty variable is unset", () => {
    const defaults = serveOptions([])
    expect(serveOptions([], Object.fromEntries(Object.values(Cli.serveFlags).map((variable) => [variable, ""])))).toEqual(defaults)
    expect(serveOptions([], { ANIMAL_STORE_API_KEYS: "" }).keys).toEqual([])
  })

  it("the help of serve names every flag with its variable, and the defaults the parser applies", async () => {
    const { out, result } = await Effect.runPromise(run(["serve", "--help"]))
    expect(result._tag).toBe("Right")
    // the help wraps nothing: a flag's variable and default are on one line
    const help = out.join("\n")
    for (const [flag, variable] of Object.entries(Cli.serveFlags)) {
      expect(help).toMatch(new RegExp(`\\n--${flag} \\S+\\n[^]*?\\(${variable}; default [^)]+\\)`))
    }
    const defaults = serveOptions([])
    expect(help).toContain(`(PORT; default ${defaults.port})`)
    expect(help).toContain(`(HOST; default ${defaults.host})`)
    expect(help).toContain(`(ANIMAL_STORE_STORE; default ${StoreLocation.format(defaults.store)})`)
    expect(help).toContain(`(ANIMAL_STORE_ENV; default ${defaults.access?.environment})`)
    expect(help).toContain(`(ANIMAL_STORE_BAN_AFTER; default ${defaults.access?.banAfter})`)
    expect(help).toContain(`(ANIMAL_STORE_BAN_SECONDS; default ${defaults.access?.banSeconds})`)
    expect(help).toContain(`(ANIMAL_STORE_ANONYMOUS_PER_MINUTE; default ${defaults.access?.anonymousPerMinute})`)
    expect(help).toContain(`(ANIMAL_STORE_ANONYMOUS_ADDRESSES; default ${defaults.access?.anonymousAddresses})`)
    expect(help).toContain("ANIMAL_STORE_API_KEYS provisions keys")
    const create = await Effect.runPromise(run(["keys", "create", "--help"]))
    expect(create.out.join("\n")).toContain("free, pro, business or enterprise")
  })

  it("reads a PostgreSQL store with its pool settings, and never shows its password", () => {
    const url = "postgres://animal:s3cret-pw@db.example:5433/animals?sslmode=require"
    const options = serveOptions(["--store", url, "--pool-size", "4"], { ANIMAL_STORE_STATEMENT_TIMEOUT: "2500" })
    expect(options.store._tag).toBe("Postgres")
    if (options.store._tag !== "Postgres") return
    expect(Redacted.value(options.store.url)).toBe(url)
    expect(options.store).toMatchObject({ maxConnections: 4, statementTimeout: 2500 })
    expect(StoreLocation.format(options.store)).toBe("postgres://animal:***@db.example:5433/animals?sslmode=require")
    expect(String(options.store.url)).not.toContain("s3cret-pw")
    expect(JSON.stringify(options)).not.toContain("s3cret-pw")
    expect(serveOptions(["--store", "postgresql://h/db"]).store._tag).toBe("Postgres")
    expect(serveOptions(["--store", "memory", "--pool-size", "4"]).store).toEqual({ _tag: "Memory" })
  })

  it("reads the keys to provision from ANIMAL_STORE_API_KEYS", () => {
    const options = serveOptions([], {
      ANIMAL_STORE_API_KEYS: "ask_live_aaaaaaaaaaaaaaaaaaaa:pro, ask_live_bbbbbbbbbbbbbbbbbbbb:enterprise:5:50"
    })
    expect(options.keys?.map((entry) => entry.options)).toEqual([
      { plan: "pro" },
      { plan: "enterprise", limits: { perMinute: 5, perDay: 50 } }
    ])
  })

  it("a flag given wins over a bad variable of the same setting", () => {
    expect(serveOptions(["--ban-after", "3"], { ANIMAL_STORE_BAN_AFTER: "x" }).access?.banAfter).toBe(3)
  })

  it("refuses bad configuration with one clear line that never shows a key", async () => {
    expect(await failure(["serve", "--bogus", "1"])).toBe("Received unknown argument: '--bogus'")
    expect(await failure(["serve", "--port"])).toContain("'--port'")
    expect(await failure(["serve", "--port", "65536"])).toMatch(/^--port: expected an integer from 0 to 65535/)
    expect(await failure(["serve"], { PORT: "http" })).toMatch(/^--port: /)
    expect(await failure(["serve", "--store", "mysql://x"])).toMatch(/^--store: expected memory, sqlite:<path> or postgres:/)
    expect(await failure(["serve", "--store", "postgres://user:hunter2@"])).toMatch(/^--store: expected postgres:\/\/user:password@host/)
    expect(await failure(["serve", "--store", "postgres://user:hunter2@"])).not.toContain("hunter2")
    expect(await failure(["serve", "--store", "memory", "--pool-size", "0"])).toMatch(/^--pool-size: /)
    expect(await failure(["serve", "--store", "memory", "--statement-timeout", "soon"])).toMatch(/^--statement-timeout: /)
    expect(await failure(["serve", "--env", "dev"])).toMatch(/^--env: expected production or staging/)
    expect(await failure(["serve", "--ban-after", "0"])).toBe('--ban-after: expected a positive integer, got "0"')
    expect(await failure(["serve"], { ANIMAL_STORE_BAN_SECONDS: "1e3" })).toBe('--ban-seconds: expected a positive integer, got "1e3"')
    expect(await failure(["keys", "create", "--plan", "free", "--env", "dev"])).toBe('--env: expected production or staging, got "dev"')
    expect(await failure(["keys", "create", "--plan", "enterprise", "--per-minute", "0", "--per-day", "1"]))
      .toMatch(/^--per-minute: expected an integer from 1 to /)
    expect(await failure(["serve", "--base-url", "ftp://x"])).toMatch(/^--base-url: /)
    expect(await failure(["serve", "--cors-origins", "https://app.example.com/path"])).toMatch(/^--cors-origins: /)
    expect(await failure(["serve", "--cursor-secret", "short"])).toMatch(/^--cursor-secret: /)
    expect(await failure(["serve", "--access-log", "maybe"])).toMatch(/^--access-log: /)
    expect(await failure(["serve", "extra"])).toBe("Received unknown argument: 'extra'")
    expect(await failure(["launch"])).toMatch(/^unknown command "launch"/)
    const secret = "ask_live_secretsecretsecret00"
    for (const keys of [`${secret}:gold`, `${secret}`, `${secret}:enterprise:5`, `${secret}:pro:5:5`, `${secret}:enterprise:10:5`]) {
      const message = await failure(["serve"], { ANIMAL_STORE_API_KEYS: keys })
      expect(message).toMatch(/^ANIMAL_STORE_API_KEYS entry 1: /)
      expect(message).not.toContain(secret)
    }
  })

  it("in-process too, names a taken operations port as the operations port", async () => {
    const taken = Net.createServer()
    await new Promise<void>((resolve) => taken.listen(0, "127.0.0.1", resolve))
    const port = (taken.address() as Net.AddressInfo).port
    try {
      expect(await failure(["serve", "--port", "0", "--store", "memory", "--ops-port", String(port)])).toMatch(
        new RegExp(`^cannot listen on the operations port \\(--ops-port\\) 127\\.0\\.0\\.1:${port}: .*EADDRINUSE`)
      )
    } finally {
      taken.close()
    }
  })

  it("refuses an admin token shorter than 32 characters, or one set without --ops-port, never repeating it", async () => {
    const short = "admin-token-of-31-characters-xx"
    const long = "admin-token-of-32-characters-xxx"
    expect([...short]).toHaveLength(31)
    const tooShort = await failure(["serve", "--ops-port", "9464"], { ANIMAL_STORE_ADMIN_TOKEN: short })
    expect(tooShort).toBe("ANIMAL_STORE_ADMIN_TOKEN must be at least 32 characters long")
    const withoutOps = await failure(["serve"], { ANIMAL_STORE_ADMIN_TOKEN: long })
    expect(withoutOps).toMatch(/^ANIMAL_STORE_ADMIN_TOKEN is set but --ops-port is not: /)
    expect(await failure(["serve"], { ANIMAL_STORE_ADMIN_TOKEN: short, ANIMAL_STORE_OPS_PORT: "" })).toBe(withoutOps)
    for (const message of [tooShort, withoutOps]) expect(message).not.toMatch(/admin-token-of/)
    const accepted = Either.getOrThrow(parseServe(["--ops-port", "9464"], { ANIMAL_STORE_ADMIN_TOKEN: long }))[2]
    expect(accepted.ops?.adminToken && Redacted.value(accepted.ops.adminToken)).toBe(long)
    expect(Either.getOrThrow(parseServe(["--ops-port", "9464"]))[2].ops?.adminToken).toBeUndefined()
  })
})

describe("animal-store keys", () => {
  it("refuses a keys command line that cannot run, in one line", async () => {
    expect(await failure(["keys", "create"])).toContain("'--plan'")
    expect(await failure(["keys", "create", "--plan", "gold"])).toMatch(/^--plan: expected free/)
    expect(await failure(["keys", "create", "--plan", "enterprise", "--per-minute", "5"])).toMatch(/go together/)
    expect(await failure(["keys", "create", "--plan", "enterprise", "--per-minute", "10", "--per-day", "5"]))
      .toBe("--per-day: must be at least --per-minute (10)")
    for (const command of ["show", "unban", "rotate"]) {
      expect(await failure(["keys", command])).toContain("<id>")
    }
    expect(await failure(["keys", "revoke"])).toContain("<id>")
    expect(await failure(["keys", "revoke", "key_1", "key_2"])).toContain("'key_2'")
    expect(await failure(["keys", "rename"])).toMatch(/^unknown command "keys rename"/)
    for (const duration of ["0", "-1d", "1x", "d", "30 d", "1m1h"]) {
      expect(await failure(["keys", "create", "--plan", "free", "--expires-in", duration])).toMatch(/^--expires-in: expected a duration/)
    }
    expect(await failure(["keys", "create", "--plan", "free", "--window", "rolling"])).toContain("fixed")
    expect(await failure(["keys", "rotate", "key_1", "--grace", "1 day"])).toMatch(/^--grace: expected a duration/)
  })

  it("shows the help for help, and the version", async () => {
    for (const argv of [[], ["help"], ["--help"], ["-h"]]) {
      const { err, out, result } = await Effect.runPromise(run(argv))
      expect(result._tag).toBe("Right")
      expect(err).toEqual([])
      expect(out.join("\n")).toMatch(/COMMANDS[^]*- serve [^]*- keys create [^]*- keys list [^]*- keys show [^]*- keys revoke [^]*- keys rotate [^]*- keys unban /)
    }
    for (const argv of [["keys"], ["keys", "-h"], ["help", "keys"]]) {
      expect((await Effect.runPromise(run(argv))).out.join("\n")).toMatch(/COMMANDS[^]*- create [^]*- list [^]*- show [^]*- revoke [^]*- unban /)
    }
    const packageJson = JSON.parse(
      Fs.readFileSync(Path.join(Path.dirname(fileURLToPath(import.meta.url)), "../package.json"), "utf8")
    ) as { readonly version: string }
    expect(Cli.version).toBe(packageJson.version)
    expect((await Effect.runPromise(run(["--version"]))).out.join("\n").trim()).toBe(packageJson.version)
  })
})

describe("animal-store keys, run in-process", () => {
  it.scoped("creates, lists and revokes keys on a SQLite file; a failure prints one line", () =>
    Effect.gen(function*() {
      const filename = yield* temporaryDatabase
      const store = ["--store", `sqlite:${filename}`]
      yield* createStore(filename)

      const created = yield* run(["keys", "create", "--plan", "pro", "--env", "staging", ...store])
      expect(created.result._tag).toBe("Right")
      expect(created.out).toHaveLength(1)
      const secret = created.out[0]!
      expect(secret).toMatch(/^ask_test_/)
      const id = /Created key (\S+) \(pro, staging\)/.exec(created.err[0]!)![1]!

      const listed = yield* run(["keys", "list", ...store])
      expect(listed.out.join("\n")).toMatch(new RegExp(`${id}\\s+ask_test_\\S+\\.\\.\\.\\s+pro\\s+300/min 10000/day\\s+staging\\s+active\\s+fixed\\s+never\\s+0/min 0/day`))
      expect(listed.out.join("\n")).not.toContain(secret)

      // The store from ANIMAL_STORE_STORE; a flag-only value (--per-minute) is never read from the environment.
      const enterprise = yield* run(
        ["keys", "create", "--plan", "enterprise", "--per-minute", "5", "--per-day", "9", "--env", "staging"],
        { ANIMAL_STORE_STORE: `sqlite:${filename}` }
      )
      expect(enterprise.err[0]).toMatch(/^Created key \S+ \(enterprise, staging\)/)
      yield* run(["keys", "create", "--plan", "free", ...store], { "per-minute": "5", PER_MINUTE: "5", ANIMAL_STORE_PER_MINUTE: "5" })
      const all = (yield* run(["keys", "list"], { ANIMAL_STORE_STORE: `sqlite:${filename}` })).out.join("\n")
      expect(all).toMatch(/enterprise\s+5\/min 9\/day\s+staging\s+active/)
      expect(all).toMatch(/free\s+60\/min 1000\/day\s+production\s+active/)

      expect((yield* run(["keys", "revoke", id, ...store])).out).toEqual([`Revoked key ${id}.`])
      expect((yield* run(["keys", "list", ...store])).out.join("\n")).toMatch(/pro\s+300\/min 10000\/day\s+staging\s+revoked at \d{4}-/)

      const missing = yield* run(["keys", "revoke", "key_nope", ...store])
      expect(missing.result._tag).toBe("Left")
      expect(missing.err).toEqual(["animal-store: no key with id \"key_nope\""])
      const invalid = yield* run(["keys", "create", "--plan", "pro", "--per-minute", "5", "--per-day", "9", ...store])
      expect(invalid.err).toHaveLength(1)
      expect(invalid.err[0]).toMatch(/^animal-store: .*enterprise/)
      for (const command of [["list"], ["create", "--plan", "free"], ["show", id], ["revoke", id], ["unban", id]]) {
        const memory = yield* run(["keys", ...command, "--store", "memory"])
        expect(memory.result._tag).toBe("Left")
        expect(memory.out).toEqual([])
        expect(memory.err).toEqual([
          "animal-store: the memory store holds nothing outside a running server: use --store sqlite:<path> or postgres://..."
        ])
      }
    }))
})

describe("animal-store keys on an operator's questions", () => {
  it.scoped("refuses a store that does not exist, creating nothing", () =>
    Effect.gen(function*() {
      const folder = Path.dirname(yield* temporaryDatabase)
      const missing = Path.join(folder, "nonexistent", "dir", "x.db")
      for (const command of [["list"], ["create", "--plan", "pro"], ["show", "key_1"], ["revoke", "key_1"], ["unban", "key_1"]]) {
        const refused = yield* run(["keys", ...command, "--json", "--store", `sqlite:${missing}`])
        expect(refused.result._tag).toBe("Left")
        expect(refused.out).toEqual([])
        expect(refused.err).toEqual([
          `animal-store: no store at sqlite:${missing} (commands on an existing store never create one; \`animal-store serve\` does)`
        ])
      }
      expect(Fs.readdirSync(folder)).toEqual([])
      Fs.mkdirSync(Path.join(folder, "a-folder"))
      expect((yield* run(["keys", "list", "--store", `sqlite:${Path.join(folder, "a-folder")}`])).err[0]).toMatch(/is not a file$/)
    }))

  it.scopedLive("shows state, limits and usage; unbans; --json prints one document, with a secret only from create", () =>
    Effect.gen(function*() {
      const filename = yield* temporaryDatabase
      const store = ["--store", `sqlite:${filename}`]
      yield* createStore(filename)
      const json = (argv: ReadonlyArray<string>) =>
        Effect.map(run([...argv, "--json", ...store]), ({ err, out, result }) => {
          expect(result._tag).toBe("Right")
          expect(err).toEqual([])
          expect(out).toHaveLength(1)
          return JSON.parse(out[0]!)
        })

      const created = yield* json(["keys", "create", "--plan", "enterprise", "--per-minute", "2", "--per-day", "3"])
      expect(created.secret).toMatch(/^ask_live_/)
      const id: string = created.key.id
      expect(created.key).toEqual({
        id,
        prefix: created.secret.slice(0, created.key.prefix.length),
        plan: "enterprise",
        limits: { perMinute: 2, perDay: 3 },
        environment: "production",
        state: "active",
        bannedUntil: null,
        revokedAt: null,
        expiresAt: null,
        window: "fixed",
        previousSecret: null,
        createdAt: created.key.createdAt,
        usage: { minute: 0, day: 0 }
      })

      // Requests counted by a server on this store (its limiter, banning at the second refusal).
      const startedAt = Date.now()
      yield* Effect.gen(function*() {
        const limiter = yield* PlanRateLimiter.PlanRateLimiter
        const principal = { keyId: id, plan: "enterprise", limits: { perMinute: 2, perDay: 3 }, environment: "production" } as const
        const outcomes = []
        for (let i = 0; i < 4; i++) outcomes.push((yield* limiter.check({ _tag: "Key", principal })).outcome)
        // within one minute; a minute boundary in between leaves the day's count and the ban as they are
        expect(outcomes.slice(0, 2)).toEqual(["Accepted", "Accepted"])
      }).pipe(Effect.provide(StandaloneServer.layerServices({ _tag: "Sqlite", filename }, { banAfter: 1, banSeconds: 600 })))

      const shown = yield* json(["keys", "show", id])
      expect(shown.usage.day).toBe(2)
      expect(shown.state).toBe("banned")
      const bannedUntil = Date.parse(shown.bannedUntil)
      expect(bannedUntil).toBeGreaterThanOrEqual(startedAt + 600_000)
      expect(bannedUntil).toBeLessThanOrEqual(Date.now() + 600_000)
      expect(yield* json(["keys", "list"])).toEqual({ keys: [shown] })

      const text = (yield* run(["keys", "show", id, ...store])).out.join("\n")
      expect(text).toMatch(new RegExp(`^id +${id}$`, "m"))
      expect(text).toMatch(/^limits +2\/min 3\/day$/m)
      expect(text).toContain(`banned until ${shown.bannedUntil}`)
      expect(text).toMatch(/^usage +\d\/min 2\/day \(this minute, this day\)$/m)
      expect((yield* run(["keys", "list", ...store])).out.join("\n")).toContain(`banned until ${shown.bannedUntil}`)

      expect((yield* run(["keys", "unban", id, ...store])).out).toEqual([`Lifted the ban of key ${id}.`])
      const unbanned = yield* json(["keys", "unban", id])
      expect(unbanned).toEqual({ ...shown, state: "active", bannedUntil: null, usage: unbanned.usage })
      expect((yield* run(["keys", "unban", id, ...store])).out).toEqual([`Key ${id} is not banned.`])

      const revoked = yield* json(["keys", "revoke", id])
      expect(revoked.state).toBe("revoked")
      expect(Date.parse(revoked.revokedAt)).toBeGreaterThanOrEqual(startedAt)
      for (const command of ["show", "revoke", "unban"]) {
        const unknown = yield* run(["keys", command, "key_nope", "--json", ...store])
        expect(unknown.result._tag).toBe("Left")
        expect(unknown.out).toEqual([])
        expect(unknown.err).toEqual(["animal-store: no key with id \"key_nope\""])
      }
      const listed = (yield* run(["keys", "list", "--json", ...store])).out.join("\n")
      expect(listed).not.toContain(created.secret)
    }))

  it.scopedLive("creates keys that expire or count a sliding minute, and rotates a key with a grace period", () =>
    Effect.gen(function*() {
      const filename = yield* temporaryDatabase
      const store = ["--store", `sqlite:${filename}`]
      yield* createStore(filename)
      const json = (argv: ReadonlyArray<string>) =>
        Effect.map(run([...argv, "--json", ...store]), ({ out }) => JSON.parse(out[0]!))
      const before = Date.now()
      const created = yield* json(["keys", "create", "--plan", "free", "--expires-in", "1d12h", "--window", "sliding"])
      expect(created.key.window).toBe("sliding")
      const expiresAt = Date.parse(created.key.expiresAt)
      expect(expiresAt).toBeGreaterThanOrEqual(before + 36 * 3_600_000)
      expect(expiresAt).toBeLessThanOrEqual(Date.now() + 36 * 3_600_000)
      const id: string = created.key.id
      const shown = (yield* run(["keys", "show", id, ...store])).out.join("\n")
      expect(shown).toMatch(new RegExp(`^expires +${created.key.expiresAt}$`, "m"))
      expect(shown).toMatch(/^window +sliding$/m)
      expect((yield* run(["keys", "list", ...store])).out.join("\n")).toMatch(/WINDOW +EXPIRES[^]*active +sliding +\d{4}-/)

      const rotated = yield* run(["keys", "rotate", id, "--grace", "90m", ...store])
      expect(rotated.out).toHaveLength(1)
      const secret = rotated.out[0]!
      expect(secret).toMatch(/^ask_live_/)
      expect(secret).not.toBe(created.secret)
      expect(rotated.err.join("\n")).toMatch(/^Rotated key key_\S+: the previous secret works until \d{4}-.*only time the new secret is shown/)
      const view = yield* json(["keys", "show", id])
      expect(view.prefix).toBe(secret.slice(0, 13))
      expect(view.previousSecret.prefix).toBe(created.key.prefix)
      expect(Date.parse(view.previousSecret.until)).toBeGreaterThanOrEqual(before + 90 * 60_000)
      expect((yield* run(["keys", "show", id, ...store])).out.join("\n")).toContain(
        `previous secret  ${created.key.prefix}... until ${view.previousSecret.until}`
      )
      const again = yield* json(["keys", "rotate", id, "--grace", "0"])
      expect(again.secret).toMatch(/^ask_live_/)
      expect(Date.parse(again.key.previousSecret.until)).toBeLessThanOrEqual(Date.now())
      const listed = (yield* run(["keys", "list", "--json", ...store])).out.join("\n")
      for (const shownOnce of [created.secret, secret, again.secret]) expect(listed).not.toContain(shownOnce)
      yield* run(["keys", "revoke", id, ...store])
      const refused = yield* run(["keys", "rotate", id, ...store])
      expect(refused.result._tag).toBe("Left")
      expect(refused.err.join("\n")).toMatch(/is revoked/)
    }))
})
