import { describe, expect, it } from "@effect/vitest"
import * as fc from "effect/FastCheck"
import { createHmac } from "node:crypto"
import * as HmacSha256 from "../src/internal/hmacSha256.js"

const hex = (text: string) => Buffer.from(text, "hex")

describe("HmacSha256", () => {
  it("gives the tags of RFC 4231 (short and long keys, a message longer than a block)", () => {
    const tagOf = (key: string | Uint8Array, message: string) => HmacSha256.make(key)(message).toString("hex")
    expect(tagOf(hex("0b".repeat(20)), "Hi There")).toBe(
      "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"
    )
    expect(tagOf("Jefe", "what do ya want for nothing?")).toBe(
      "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
    )
    expect(tagOf(hex("aa".repeat(131)), "Test Using Larger Than Block-Size Key - Hash Key First")).toBe(
      "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"
    )
    expect(
      tagOf(
        hex("aa".repeat(131)),
        "This is a test using a larger than block-size key and a larger than block-size data. The key needs to be hashed before being used by the HMAC algorithm."
      )
    ).toBe("9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2")
  })

  it.prop(
    "is createHmac's tag for any key and message, each tag of one key alone (the scratch is reused)",
    {
      key: fc.oneof(fc.string({ maxLength: 100, unit: "binary" }), fc.uint8Array({ maxLength: 200 })),
      messages: fc.array(fc.string({ maxLength: 700, unit: "binary" }), { minLength: 1, maxLength: 4 })
    },
    ({ key, messages }) => {
      const hmac = HmacSha256.make(key)
      for (const message of messages) {
        expect(hmac(message).equals(createHmac("sha256", key).update(message).digest())).toBe(true)
      }
    }
  )
})
