import { describe, expect, it } from "@effect/vitest"
import { Console, Effect, Either, Redacted } from "effect"
import * as Cli from "../src/Cli.js"
import * as StoreLocation from "../src/StoreLocation.js"
import type * as StandaloneServer from "../src/StandaloneServer.js"
import { temporaryDatabase } from "./support/temporaryDatabase.js"

const serveOptions = (argv: ReadonlyArray<string>, env: Cli.Env = {}): StandaloneServer.Options => {
  const command = Either.getOrThrow(Cli.parse(["serve", ...argv], env))
  if (command._tag !== "Serve") throw new Error(`not serve: ${command._tag}`)
  const { cursorSecret, ...options } = command.options
  // the secret is `Redacted`: compare its value
  return cursorSecret === undefined ? options : { ...options, cursorSecret: Redacted.value(cursorSecret as Redacted.Redacted<string>) }
}

const failure = (argv: ReadonlyArray<string>, env: Cli.Env = {}): string =>
  Either.match(Cli.parse(argv, env), { onLeft: (error) => error.message, onRight: () => "(parsed)" })

describe("animal-store serve options", () => {
  it("default to the SQLite file ./data/animal-store.db on 127.0.0.1:8080 in production", () => {
    const options = serveOptions([])
    expect(options).toMatchObject({
      host: "127.0.0.1",
      port: 8080,
      store: { _tag: "Sqlite", filename: "./data/animal-store.db" },
      access: { environment: "production", banAfter: 10, banSeconds: 900, anonymousPerMinute: 60 },
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
    "base-url": ["https://a.example/v1", "https://b.example/v1"],
    "staging-base-url": ["https://s.example/v1", "https://t.example/v1"],
    "trusted-proxies": ["10.0.0.1", "10.0.0.2,10.0.0.3"],
    "cors-origins": ["https://app.example.com", "*"],
    "cursor-secret": ["a".repeat(32), "b".repeat(40)],
    "access-log": ["off", "on"]
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

  it("an empty variable is unset, and a flag-only value is never read from the environment", () => {
    const defaults = serveOptions([])
    expect(serveOptions([], Object.fromEntries(Object.values(Cli.serveFlags).map((variable) => [variable, ""])))).toEqual(defaults)
    expect(Either.getOrThrow(Cli.parse(["keys", "create", "--plan", "free"], { "per-minute": "5", PER_MINUTE: "5" })))
      .toMatchObject({ options: { plan: "free", limits: undefined } })
  })

  it("the usage names every flag with its variable, and the defaults the parser applies", () => {
    for (const [flag, variable] of Object.entries(Cli.serveFlags)) {
      expect(Cli.usage).toMatch(new RegExp(`--${flag} [^\\n]*(\\n {29}[^\\n]*)*\\(${variable}; `))
    }
    const defaults = serveOptions([])
    expect(Cli.usage).toContain(`(PORT; ${defaults.port})`)
    expect(Cli.usage).toContain(`(HOST; ${defaults.host})`)
    expect(Cli.usage).toContain(`(ANIMAL_STORE_STORE; ${StoreLocation.format(defaults.store)})`)
    expect(Cli.usage).toContain(`(ANIMAL_STORE_ENV; ${defaults.access?.environment})`)
    expect(Cli.usage).toContain(`(ANIMAL_STORE_BAN_AFTER; ${defaults.access?.banAfter})`)
    expect(Cli.usage).toContain(`(ANIMAL_STORE_BAN_SECONDS; ${defaults.access?.banSeconds})`)
    expect(Cli.usage).toContain(`(ANIMAL_STORE_ANONYMOUS_PER_MINUTE; ${defaults.access?.anonymousPerMinute})`)
    expect(Cli.usage).toContain("free, pro, business or enterprise")
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

  it("refuses bad configuration with one clear reason that never shows a key", () => {
    expect(failure(["serve", "--bogus", "1"])).toBe("unknown flag --bogus")
    expect(failure(["serve", "--port"])).toBe("--port needs a value")
    expect(failure(["serve", "--port", "65536"])).toMatch(/^--port: expected an integer from 0 to 65535/)
    expect(failure(["serve"], { PORT: "http" })).toMatch(/^--port: /)
    expect(failure(["serve", "--store", "mysql://x"])).toMatch(/^--store: expected memory, sqlite:<path> or postgres:/)
    expect(failure(["serve", "--store", "postgres://user:hunter2@"])).toMatch(/^--store: expected postgres:\/\/user:password@host/)
    expect(failure(["serve", "--store", "postgres://user:hunter2@"])).not.toContain("hunter2")
    expect(failure(["serve", "--store", "memory", "--pool-size", "0"])).toMatch(/^--pool-size: /)
    expect(failure(["serve", "--store", "memory", "--statement-timeout", "soon"])).toMatch(/^--statement-timeout: /)
    expect(failure(["serve", "--env", "dev"])).toMatch(/^--env: expected production or staging/)
    // The access settings are core's AccessConfig.config, read with the flags over the environment.
    expect(failure(["serve", "--ban-after", "0"])).toBe('--ban-after: expected a positive integer, got "0"')
    expect(failure(["serve"], { ANIMAL_STORE_BAN_SECONDS: "1e3" })).toBe('--ban-seconds: expected a positive integer, got "1e3"')
    expect(failure(["serve", "--ban-after", "3"], { ANIMAL_STORE_BAN_AFTER: "x" })).toBe("(parsed)")
    expect(failure(["keys", "create", "--plan", "free", "--env", "dev"])).toBe('--env: expected production or staging, got "dev"')
    expect(failure(["keys", "create", "--plan", "enterprise", "--per-minute", "0", "--per-day", "1"]))
      .toMatch(/^--per-minute: expected an integer from 1 to /)
    expect(failure(["serve", "--base-url", "ftp://x"])).toMatch(/^--base-url: /)
    expect(failure(["serve", "--cors-origins", "https://app.example.com/path"])).toMatch(/^--cors-origins: /)
    expect(failure(["serve", "--cursor-secret", "short"])).toMatch(/^--cursor-secret: /)
    expect(failure(["serve", "--access-log", "maybe"])).toMatch(/^--access-log: /)
    expect(failure(["serve", "extra"])).toMatch(/unexpected argument "extra"/)
    expect(failure(["launch"])).toMatch(/^unknown command "launch"/)
    const secret = "ask_live_secretsecretsecret00"
    for (const keys of [`${secret}:gold`, `${secret}`, `${secret}:enterprise:5`, `${secret}:pro:5:5`]) {
      const message = failure(["serve"], { ANIMAL_STORE_API_KEYS: keys })
      expect(message).toMatch(/^ANIMAL_STORE_API_KEYS entry 1: /)
      expect(message).not.toContain(secret)
    }
  })
})

describe("animal-store keys", () => {
  it("parses create, list and revoke on the store of --store or ANIMAL_STORE_STORE", () => {
    expect(Either.getOrThrow(Cli.parse(["keys", "create", "--plan", "enterprise", "--per-minute", "5", "--per-day", "9", "--env", "staging", "--store", "memory"], {})))
      .toEqual({
        _tag: "KeysCreate",
        store: { _tag: "Memory" },
        options: { plan: "enterprise", limits: { perMinute: 5, perDay: 9 }, environment: "staging" }
      })
    expect(Either.getOrThrow(Cli.parse(["keys", "list"], { ANIMAL_STORE_STORE: "sqlite:k.db" }))).toEqual({
      _tag: "KeysList",
      store: { _tag: "Sqlite", filename: "k.db" }
    })
    expect(Either.getOrThrow(Cli.parse(["keys", "revoke", "key_1"], {}))).toMatchObject({ _tag: "KeysRevoke", id: "key_1" })
    expect(failure(["keys", "create"])).toMatch(/^--plan: is required/)
    expect(failure(["keys", "create", "--plan", "gold"])).toMatch(/^--plan: expected free/)
    expect(failure(["keys", "create", "--plan", "enterprise", "--per-minute", "5"])).toMatch(/go together/)
    expect(failure(["keys", "revoke"])).toMatch(/exactly one key id/)
    expect(failure(["keys", "rotate"])).toMatch(/^unknown keys command/)
  })

  it("shows the usage for help", () => {
    for (const argv of [[], ["help"], ["--help"], ["serve", "--help"], ["keys", "-h"]]) {
      expect(Either.getOrThrow(Cli.parse(argv, {}))).toEqual({ _tag: "Help", text: Cli.usage })
    }
  })
})

const captureConsole = Effect.map(Console.consoleWith(Effect.succeed), (live) => {
  const out: Array<string> = []
  const err: Array<string> = []
  const console: Console.Console = {
    ...live,
    log: (...args) => Effect.sync(() => void out.push(args.join(" "))),
    error: (...args) => Effect.sync(() => void err.push(args.join(" ")))
  }
  return { out, err, console }
})

describe("animal-store keys, run in-process", () => {
  it.scoped("creates, lists and revokes keys on a SQLite file; a failure prints one line", () =>
    Effect.gen(function*() {
      const filename = yield* temporaryDatabase
      const store = ["--store", `sqlite:${filename}`]
      const run = (argv: ReadonlyArray<string>) =>
        Effect.flatMap(captureConsole, ({ console, err, out }) =>
          Cli.run(argv, {}).pipe(Effect.withConsole(console), Effect.either, Effect.map((result) => ({ result, out, err }))))

      const created = yield* run(["keys", "create", "--plan", "pro", "--env", "staging", ...store])
      expect(created.result._tag).toBe("Right")
      expect(created.out).toHaveLength(1)
      const secret = created.out[0]!
      expect(secret).toMatch(/^ask_test_/)
      const id = /Created key (\S+) \(pro, staging\)/.exec(created.err[0]!)![1]!

      const listed = yield* run(["keys", "list", ...store])
      expect(listed.out.join("\n")).toMatch(new RegExp(`${id}\\s+ask_test_\\S+\\.\\.\\.\\s+pro\\s+300/min 10000/day\\s+staging\\s+active`))
      expect(listed.out.join("\n")).not.toContain(secret)

      expect((yield* run(["keys", "revoke", id, ...store])).out).toEqual([`Revoked key ${id}.`])
      expect((yield* run(["keys", "list", ...store])).out.join("\n")).toMatch(/staging\s+revoked /)

      const missing = yield* run(["keys", "revoke", "key_nope", ...store])
      expect(missing.result._tag).toBe("Left")
      expect(missing.err).toEqual(["animal-store: no key with id \"key_nope\""])
      const invalid = yield* run(["keys", "create", "--plan", "pro", "--per-minute", "5", "--per-day", "9", ...store])
      expect(invalid.err).toHaveLength(1)
      expect(invalid.err[0]).toMatch(/^animal-store: .*enterprise/)
      expect((yield* run(["keys", "list", "--store", "memory"])).out).toEqual(["No keys."])
    }))
})
