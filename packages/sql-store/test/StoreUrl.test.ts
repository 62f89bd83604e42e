import type { AnimalStore } from "@animal-store/core"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Either, Layer } from "effect"
import { StoreUrl } from "../src/index.js"

const opened: Array<string> = []
const ports = (name: string) =>
  Layer.effectContext(Effect.sync(() => {
    opened.push(name)
    return undefined as never
  })) as unknown as Layer.Layer<AnimalStore.StorePorts>

const memory = StoreUrl.make<{ readonly _tag: "Memory" }>({
  tag: "Memory",
  form: "memory",
  accepts: (text) => text === "memory",
  parse: () => Either.right({ _tag: "Memory" }),
  format: () => "memory",
  layer: () => ports("memory")
})
const remote = StoreUrl.make<{ readonly _tag: "Remote"; readonly host: string }>({
  tag: "Remote",
  form: "remote://<host>",
  accepts: (text) => text.startsWith("remote:"),
  parse: (text) => text.startsWith("remote://") && text.length > 9 ? Either.right({ _tag: "Remote", host: text.slice(9) }) : Either.left("expected remote://<host>"),
  format: (location) => `remote://${location.host}`,
  layer: (location) => ports(location.host)
})

describe("StoreUrl", () => {
  const stores = StoreUrl.registry(memory, remote)

  it("the store that accepts a text parses it, its reason when it is not valid", () => {
    expect(stores.parse("memory")).toEqual(Either.right({ _tag: "Memory" }))
    expect(stores.parse("remote://db")).toEqual(Either.right({ _tag: "Remote", host: "db" }))
    expect(stores.parse("remote:x")).toEqual(Either.left("expected remote://<host>"))
    expect(stores.parse("mysql://x")).toEqual(Either.left(`expected memory or remote://<host>, got "mysql://x"`))
    expect(StoreUrl.registry(memory, remote, memory).parse("")).toEqual(
      Either.left(`expected memory, remote://<host> or memory, got ""`)
    )
  })

  it.effect("formats and opens a location with the store it is of", () =>
    Effect.gen(function*() {
      expect(stores.format({ _tag: "Remote", host: "db" })).toBe("remote://db")
      expect(stores.format({ _tag: "Memory" })).toBe("memory")
      yield* Layer.build(stores.layer({ _tag: "Remote", host: "db" }))
      yield* Layer.build(stores.layer({ _tag: "Memory" }))
      expect(opened).toEqual(["db", "memory"])
    }).pipe(Effect.scoped))
})
