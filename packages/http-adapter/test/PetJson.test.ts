import { Pet } from "@animal-store/core"
import { describe, expect, it } from "@effect/vitest"
import { Arbitrary, Schema } from "effect"
import * as fc from "effect/FastCheck"
import * as HttpExchange from "../src/HttpExchange.js"
import * as Shortcuts from "../src/internal/shortcuts.js"

const pet = Arbitrary.make(Pet.Pet)
const encodePets = Schema.encodeSync(Schema.Array(Pet.Pet))

/** Any string: of any byte, of ASCII, of any UTF-16 code unit (lone surrogates among them). */
const anyString = fc.oneof(
  fc.string({ unit: "binary" }),
  fc.string({ unit: "binary-ascii" }),
  fc.string({ unit: fc.integer({ min: 0, max: 0xffff }).map((code) => String.fromCharCode(code)) })
)

describe("the JSON text of pets", () => {
  it.prop("is the JSON of the schema's encoding of any pets", { pets: fc.array(pet, { maxLength: 5 }) }, ({ pets }) => {
    expect(Shortcuts.petsJsonText(pets)).toBe(JSON.stringify(encodePets(pets)))
    expect(Buffer.from(Shortcuts.petsJsonBytes(pets))).toEqual(Buffer.from(JSON.stringify(encodePets(pets)), "utf8"))
    for (const one of pets) expect(Shortcuts.petJsonText(one)).toBe(JSON.stringify(Schema.encodeSync(Pet.Pet)(one)))
  })

  it.prop(
    "writes any name as JSON.stringify does, lone surrogates and control characters among them",
    { name: anyString },
    ({ name }) => {
      const pet = Pet.Pet.make({ id: Pet.PetId.make(7), name, categoryId: Pet.CategoryId.make(3), status: "sold" }, true)
      expect(Shortcuts.petJsonText(pet)).toBe(JSON.stringify({ id: 7, name, categoryId: 3, status: "sold" }))
    }
  )

  it.prop(
    "quotes any string as JSON.stringify does (jsonString)",
    { text: anyString },
    ({ text }) => {
      expect(HttpExchange.jsonString(text)).toBe(JSON.stringify(text))
    }
  )

  it("escapes names as JSON does", () => {
    const named = (name: string) => Pet.Pet.make({ id: Pet.PetId.make(7), name, categoryId: Pet.CategoryId.make(3), status: "sold" })
    for (const name of ["Rex \"the\" dog", "back\\slash", "line\nbreak\u0001", "😀 ü \u2028"]) {
      expect(JSON.parse(Shortcuts.petJsonText(named(name)))).toEqual({ id: 7, name, categoryId: 3, status: "sold" })
    }
    expect(Shortcuts.petsJsonText([])).toBe("[]")
    expect(new TextDecoder().decode(Shortcuts.petsJsonBytes([named("😀 ü")]))).toBe(
      "[{\"id\":7,\"name\":\"😀 ü\",\"categoryId\":3,\"status\":\"sold\"}]"
    )
  })
})
