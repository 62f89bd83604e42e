import { describe, expect, it } from "@effect/vitest"
import { Cause, Effect, Exit } from "effect"
import * as fc from "fast-check"
import * as Immediate from "../src/Immediate.js"

/** An effect whose outcome is `exit`: the `Exit` itself, or the same outcome after a step of the fiber. */
const effectOf = (exit: Exit.Exit<number, string>, known: boolean): Effect.Effect<number, string> =>
  known ? exit : Effect.suspend(() => exit)

const exits: fc.Arbitrary<Exit.Exit<number, string>> = fc.oneof(
  fc.integer().map((n) => Exit.succeed(n)),
  fc.string().map((e) => Exit.fail(e)),
  fc.string().map((d) => Exit.die(d)),
  fc.constant(Exit.interrupt(Effect.runSync(Effect.fiberId))),
  fc.tuple(fc.string(), fc.string()).map(([a, b]) => Exit.failCause(Cause.sequential(Cause.fail(a), Cause.die(b))))
)

const run = <A>(effect: Effect.Effect<A, string>) => Effect.runSyncExit(effect)

describe("Immediate", () => {
  it("each combinator has the outcome of its Effect namesake, on an Exit and on any other effect", () =>
    fc.assert(fc.property(exits, fc.boolean(), fc.integer(), (exit, known, k) => {
      const self = effectOf(exit, known)
      const f = (n: number) => (n % 2 === 0 ? Exit.succeed(n + k) : Exit.fail(`odd ${n}`))
      const onFailure = (e: string) => Exit.succeed(e.length)
      const onCause = (cause: Cause.Cause<string>) => Exit.succeed(Cause.pretty(cause).length)
      expect(run(Immediate.flatMap(self, f))).toStrictEqual(run(Effect.flatMap(self, f)))
      expect(run(Immediate.map(self, (n) => n * 3))).toStrictEqual(run(Effect.map(self, (n) => n * 3)))
      expect(run(Immediate.matchEffect(self, { onFailure, onSuccess: f }))).toStrictEqual(
        run(Effect.matchEffect(self, { onFailure, onSuccess: f }))
      )
      expect(run(Immediate.catchAll(self, onFailure))).toStrictEqual(run(Effect.catchAll(self, onFailure)))
      expect(run(Immediate.catchAllCause(self, onCause))).toStrictEqual(run(Effect.catchAllCause(self, onCause)))
    })))

  it("on an Exit, the function runs when the effect is made and the result is an Exit", () => {
    let calls = 0
    const mapped = Immediate.map(Exit.succeed(2), (n) => (calls++, n + 1))
    expect(calls).toBe(1)
    expect(mapped).toStrictEqual(Exit.succeed(3))
    const recovered = Immediate.catchAll(Exit.fail("no"), (e) => Exit.succeed(e.length))
    expect(recovered).toStrictEqual(Exit.succeed(2))
    const matched = Immediate.matchEffect(Exit.fail("no"), { onFailure: () => Exit.succeed("failed"), onSuccess: () => Exit.succeed("ok") })
    expect(matched).toStrictEqual(Exit.succeed("failed"))
  })

  it("on any other effect, the function waits for the effect to run", () => {
    let calls = 0
    const mapped = Immediate.map(Effect.sync(() => 2), (n) => (calls++, n + 1))
    expect(calls).toBe(0)
    expect(Exit.isExit(mapped)).toBe(false)
    expect(Effect.runSync(mapped)).toBe(3)
    expect(calls).toBe(1)
  })

  it("a defect is never handed to onFailure or catchAll", () => {
    const died = Exit.die("bug")
    expect(run(Immediate.matchEffect(died, { onFailure: () => Exit.succeed(0), onSuccess: Exit.succeed }))).toStrictEqual(died)
    expect(run(Immediate.catchAll(died, () => Exit.succeed(0)))).toStrictEqual(died)
  })
})
