/**
 * Hostile requests for the web handler: random methods, paths, query strings,
 * headers and bodies, biased towards the edges (huge, deeply nested, invalid
 * UTF-8, numbers beyond 2^53, `__proto__` and `constructor` keys), and an
 * oracle of the interface written independently of core: which bodies are a
 * valid `NewPet`, and what they are stored as.
 */
import { FastCheck as fc } from "effect"

/** The keys the handler under test is provisioned with. */
export const keys = {
  /** enterprise, limits never reached */
  unlimited: "ask_live_hostileunlimited0000000",
  /** enterprise, 5 a minute: refused (429) and banned soon */
  tiny: "ask_live_hostiletiny000000000000",
  /** a staging key on a production handler: 401 */
  staging: "ask_test_hostilestaging000000000",
  /** revoked after provisioning: 401 */
  revoked: "ask_live_hostilerevoked000000000"
} as const

export type CredentialKind = keyof typeof keys | "none" | "garbage"

export interface Credential {
  readonly kind: CredentialKind
  /** The `Authorization` header, if any. */
  readonly header: string | undefined
}

export interface HostileRequest {
  readonly method: string
  /** Path and query string, as sent. */
  readonly target: string
  readonly credential: Credential
  readonly contentType: string | undefined
  readonly contentLength: string | undefined
  readonly headers: ReadonlyArray<readonly [string, string]>
  readonly body: Uint8Array | undefined
  readonly remoteAddress: string | undefined
}

export const maxBodyBytes = 65_536

const encoder = new TextEncoder()

const latin1 = fc.integer({ min: 0x20, max: 0xff }).map((code) => String.fromCharCode(code))

// Methods ---------------------------------------------------------------------------------------

/** Methods that `new Request` refuses. */
const forbiddenMethods = ["CONNECT", "TRACE", "TRACK"]

const method: fc.Arbitrary<string> = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom("POST", "GET") },
  { weight: 2, arbitrary: fc.constantFrom("PUT", "PATCH", "DELETE", "HEAD", "OPTIONS", "post", "get", "Post", "delete") },
  { weight: 1, arbitrary: fc.stringMatching(/^[A-Za-z]{1,10}$/) }
).filter((m) => !forbiddenMethods.includes(m.toUpperCase()))

/** The method as `Request` normalizes it: the six standard ones in upper case, others as given. */
const normalizeMethod = (m: string): string =>
  ["DELETE", "GET", "HEAD", "OPTIONS", "POST", "PUT"].includes(m.toUpperCase()) ? m.toUpperCase() : m

// Paths and query strings -----------------------------------------------------------------------

/** Identifiers as text: valid, small (often existing), at and beyond 2^53, malformed. */
const idText: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: fc.integer({ min: 1, max: 60 }).map(String) },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      "0", "-1", "01", "+1", "1e3", "1.0", "0x1", "9007199254740991", "9007199254740992", "9007199254740993",
      "18446744073709551616", "1".repeat(101), "1".repeat(400), "%31", "%FF", "%", "%E2%82", "%C0%AF", "%00", "１"
    )
  },
  { weight: 1, arbitrary: fc.bigInt({ min: 0n, max: 2n ** 70n }).map(String) }
)

const segment: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom("v1", "pets", "openapi.json", "docs", "store", "orders") },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      "__proto__", "constructor", "prototype", "toString", "..", ".", "", "%2F", "%2e%2e", "V1", "PETS", "pets;x=1",
      "x".repeat(20_000)
    )
  },
  { weight: 2, arbitrary: idText },
  { weight: 1, arbitrary: fc.string({ unit: "binary", maxLength: 12 }) }
)

const path: fc.Arbitrary<string> = fc.oneof(
  { weight: 6, arbitrary: fc.constant(["v1", "pets"]) },
  { weight: 3, arbitrary: idText.map((id) => ["v1", "pets", id]) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(["v1", "openapi.json"], ["v1", "docs"], ["store", "orders"], ["v1", "store", "orders"])
  },
  { weight: 2, arbitrary: fc.array(segment, { maxLength: 5 }) }
).map((parts) => "/" + parts.join("/"))

const cursor = fc.oneof(
  fc.integer({ min: 1, max: 60 }).map((id) => "p1." + Buffer.from(String(id)).toString("base64url")),
  fc.constantFrom("p1.", "p1.!!", "p1.OTAwNzE5OTI1NDc0MDk5Mw", "p1.MA", "p1.LTE", "p2.MQ", "MQ")
)

const queryKey = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom("limit", "status", "cursor") },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      "__proto__", "constructor", "toString", "hasOwnProperty", "valueOf", "limit[]", "__proto__[limit]",
      "status[__proto__]", "constructor[prototype]"
    )
  },
  { weight: 1, arbitrary: fc.string({ maxLength: 8 }) }
)

const queryValue = fc.oneof(
  { weight: 3, arbitrary: fc.integer({ min: -5, max: 120 }).map(String) },
  { weight: 2, arbitrary: fc.constantFrom("available", "pending", "sold") },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      "", "SOLD", "1e2", "1.5", "9007199254740993", "%FF", "%", "null", "[]", "{}", "1".repeat(300)
    )
  },
  { weight: 2, arbitrary: cursor },
  { weight: 1, arbitrary: fc.string({ maxLength: 20 }) }
)

/** `key=value` pairs, some raw (`%` and all), some percent-encoded; keys may repeat. */
const query: fc.Arbitrary<string> = fc.array(fc.tuple(queryKey, queryValue, fc.boolean()), { maxLength: 6 }).map(
  (pairs) =>
    pairs.map(([key, value, raw]) => raw ? `${key}=${value}` : `${encodeURIComponent(key)}=${encodeURIComponent(value)}`)
      .join("&")
)

const target: fc.Arbitrary<string> = fc.tuple(path, fc.option(query, { freq: 2, nil: undefined })).map(([p, q]) =>
  q === undefined ? p : `${p}?${q}`
)

// Headers ---------------------------------------------------------------------------------------

const credential: fc.Arbitrary<Credential> = fc.oneof(
  {
    weight: 8,
    arbitrary: fc.tuple(fc.constantFrom("Bearer", "bearer", "BEARER"), fc.integer({ min: 1, max: 3 })).map((
      [scheme, spaces]
    ): Credential => ({ kind: "unlimited", header: `${scheme}${" ".repeat(spaces)}${keys.unlimited}` }))
  },
  {
    weight: 2,
    arbitrary: fc.constantFrom<CredentialKind>("tiny", "staging", "revoked").map((kind): Credential => ({
      kind,
      header: `Bearer ${keys[kind as keyof typeof keys]}`
    }))
  },
  { weight: 2, arbitrary: fc.constant<Credential>({ kind: "none", header: undefined }) },
  {
    weight: 2,
    arbitrary: fc.oneof(
      fc.stringMatching(/^[\x21-\x7e]{1,60}$/).map((token) => `Bearer ${token}`),
      fc.constantFrom(
        `Basic ${keys.unlimited}`,
        keys.unlimited,
        `Bearer ${keys.unlimited} ${keys.unlimited}`,
        `Bearer ${keys.unlimited.toUpperCase()}`,
        `Bearer ${keys.unlimited}x`,
        "Bearer",
        "Bearer ask_live_",
        `Bearer ask_live_${"a".repeat(20_000)}`,
        "Bearer __proto__",
        "Bearer constructor"
      )
    ).map((header): Credential => ({ kind: "garbage", header }))
  }
)

const contentType: fc.Arbitrary<string | undefined> = fc.oneof(
  {
    weight: 8,
    arbitrary: fc.constantFrom("application/json", "application/json; charset=utf-8", "Application/JSON", "application/json;x=y")
  },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      undefined, "", "text/plain", "application/jsonx", "application/problem+json", "application/x-www-form-urlencoded",
      "multipart/form-data; boundary=x", "json", "application/json,text/plain"
    )
  },
  { weight: 1, arbitrary: fc.string({ unit: latin1, maxLength: 30 }) }
)

/** `exact` is replaced by the body's length when the request is built. */
const contentLength: fc.Arbitrary<string | undefined> = fc.oneof(
  { weight: 8, arbitrary: fc.constant(undefined) },
  { weight: 1, arbitrary: fc.constantFrom("exact", "0", "1", "70000", "99999999999999999999", "-1", "abc", "1.5") }
)

/** Headers the property controls itself are never among the random ones. */
const ownHeaders = ["authorization", "content-type", "content-length"]

const headerName = fc.oneof(
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      "x-forwarded-for", "forwarded", "accept", "accept-encoding", "transfer-encoding", "expect", "connection", "cookie",
      "origin", "x-http-method-override", "x-original-url", "__proto__", "constructor", "range", "te", "upgrade", "host",
      "content-encoding"
    )
  },
  { weight: 1, arbitrary: fc.stringMatching(/^[a-z0-9!#$%&'*+.^_`|~-]{1,16}$/) }
).filter((name) => !ownHeaders.includes(name))

const headerValue = fc.oneof(
  { weight: 6, arbitrary: fc.string({ unit: latin1, maxLength: 30 }) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      "x".repeat(20_000), "192.0.2.99, 10.0.0.1", "DELETE", "chunked", "100-continue", "gzip", "identity", "Identity"
    )
  }
)

const headers = fc.array(fc.tuple(headerName, headerValue), { maxLength: 4 })

const remoteAddress = fc.option(fc.constantFrom("192.0.2.1", "192.0.2.2", "2001:db8::1", "::ffff:192.0.2.3"), {
  nil: undefined
})

// Bodies ----------------------------------------------------------------------------------------

const space = fc.constantFrom(" ", "\t", "\n", "\r", "\u00a0", "\u2003", "\u3000", "\ufeff", "\u2028")

/** Names: any code points, white space, lone surrogates, NUL, and lengths around 255. */
const name: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: fc.string({ unit: "binary", maxLength: 12 }) },
  {
    weight: 2,
    arbitrary: fc.string({ unit: fc.oneof(space, fc.constantFrom("a", "é", "😀", "\u0000", "\u200b", "\u0301")), maxLength: 8 })
  },
  {
    weight: 1,
    arbitrary: fc.tuple(fc.integer({ min: 253, max: 257 }), fc.constantFrom("x", "😀"), fc.string({ unit: space, maxLength: 2 }))
      .map(([n, c, pad]) => pad + c.repeat(n) + pad)
  },
  { weight: 1, arbitrary: fc.constantFrom("\ud800", "a\udc00b", "\ud83d", "Rex\udfff", "\udc00\ud800") }
)

const validId = fc.oneof(fc.integer({ min: 1, max: 1_000 }), fc.constant(Number.MAX_SAFE_INTEGER))

const status = fc.constantFrom("available", "pending", "sold")

/** A `NewPet` most of the time (names of any kind), as JSON text. */
const petObject = fc.record({ name, categoryId: validId, status }, { requiredKeys: ["name", "categoryId"] })

/** Number literals JSON allows, at and beyond the safe integers, and other numbers. */
const numberText = fc.constantFrom(
  "0", "-0", "1", "-1", "1.0", "1.5", "1e0", "1E2", "1e400", "-1e400", "9007199254740991", "9007199254740992",
  "9007199254740993", "18446744073709551616", "0.0000001", "123456789012345678901234567890", "1".repeat(400)
)

/** Nesting up to what the body limit allows. */
const nested = fc.tuple(fc.constantFrom(10, 500, 2_000, 5_000, 20_000, 32_000, 40_000), fc.boolean()).map((
  [depth, arrays]
) => arrays ? "[".repeat(depth) + "]".repeat(depth) : "{\"a\":".repeat(depth) + "1" + "}".repeat(depth))

const valueText: fc.Arbitrary<string> = fc.oneof(
  { weight: 2, arbitrary: fc.json({ maxDepth: 3 }) },
  { weight: 2, arbitrary: numberText },
  { weight: 1, arbitrary: nested },
  { weight: 2, arbitrary: name.map((n) => JSON.stringify(n)) },
  { weight: 1, arbitrary: fc.constantFrom("\"available\"", "\"SOLD\"", "null", "true", "[]", "{}", "\"1\"") }
)

const key = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom("name", "categoryId", "status") },
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      "__proto__", "constructor", "prototype", "toString", "valueOf", "hasOwnProperty", "id", "Name", "name ", ""
    )
  },
  { weight: 1, arbitrary: fc.string({ maxLength: 8 }) }
)

/** A `NewPet` with members added (a repeated key overrides: JSON.parse keeps the last), or a member dropped. */
const mutatedPet: fc.Arbitrary<string> = fc.tuple(
  petObject,
  fc.array(fc.tuple(key, valueText), { minLength: 1, maxLength: 3 }),
  fc.option(fc.constantFrom("name", "categoryId", "status"), { nil: undefined })
).map(([pet, extra, dropped]) => {
  const members = Object.entries(pet).filter(([k]) => k !== dropped).map(([k, v]) => [k, JSON.stringify(v)] as const)
  return "{" + [...members, ...extra].map(([k, v]) => `${JSON.stringify(k)}:${v}`).join(",") + "}"
})

/** Invalid UTF-8: stray continuation and lead bytes, overlong forms, surrogates, beyond U+10FFFF, truncations. */
const invalidUtf8 = fc.constantFrom(
  [0xff], [0xfe], [0x80], [0xc0, 0xaf], [0xc1, 0xbf], [0xe0, 0x80, 0xaf], [0xed, 0xa0, 0x80], [0xed, 0xbf, 0xbf],
  [0xf4, 0x90, 0x80, 0x80], [0xf8, 0x88, 0x80, 0x80, 0x80], [0xe2, 0x82], [0xf0, 0x9f, 0x98]
)

const insertBytes = (text: string, bytes: ReadonlyArray<number>, at: number): Uint8Array => {
  const encoded = encoder.encode(text)
  const position = at % (encoded.length + 1)
  return Uint8Array.from([...encoded.subarray(0, position), ...bytes, ...encoded.subarray(position)])
}

const petText = petObject.map((pet) => JSON.stringify(pet))

const body: fc.Arbitrary<Uint8Array | undefined> = fc.oneof(
  { weight: 6, arbitrary: petText.map((text) => encoder.encode(text)) },
  { weight: 6, arbitrary: mutatedPet.map((text) => encoder.encode(text)) },
  { weight: 2, arbitrary: fc.tuple(petText, invalidUtf8, fc.nat()).map(([text, bytes, at]) => insertBytes(text, bytes, at)) },
  { weight: 1, arbitrary: fc.uint8Array({ maxLength: 64 }) },
  {
    weight: 1,
    arbitrary: petText.map((text) => Uint8Array.from([0xef, 0xbb, 0xbf, ...encoder.encode(text)]))
  },
  { weight: 2, arbitrary: nested.map((text) => encoder.encode(text)) },
  {
    weight: 2,
    arbitrary: fc.tuple(petText, fc.integer({ min: maxBodyBytes - 40, max: maxBodyBytes + 40 })).map(([text, size]) =>
      encoder.encode(" ".repeat(Math.max(0, size - encoder.encode(text).length)) + text)
    )
  },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      `{"name":"${"x".repeat(60_000)}","categoryId":1}`,
      `[${"1,".repeat(50_000)}1]`,
      `{"name":"a","categoryId":1,"x":"${"y".repeat(200_000)}"}`
    ).map((text) => encoder.encode(text))
  },
  { weight: 1, arbitrary: fc.json().map((text) => encoder.encode(text)) },
  { weight: 1, arbitrary: fc.constantFrom(undefined, new Uint8Array(0), encoder.encode("{"), encoder.encode("null")) }
)

const unlimited = fc.constantFrom("Bearer", "bearer", "BEARER").map((scheme): Credential => ({
  kind: "unlimited",
  header: `${scheme} ${keys.unlimited}`
}))

const mostly = <A>(usual: fc.Arbitrary<A>, other: fc.Arbitrary<A>) =>
  fc.oneof({ weight: 9, arbitrary: usual }, { weight: 1, arbitrary: other })

/** Any part may be hostile. */
const anyRequest: fc.Arbitrary<HostileRequest> = fc.record({
  method,
  target,
  credential,
  contentType,
  contentLength,
  headers,
  body,
  remoteAddress
})

/** `POST /v1/pets`, with a key that is never limited, most of the time as JSON: the body is hostile. */
const createRequest: fc.Arbitrary<HostileRequest> = fc.record({
  method: fc.constant("POST"),
  target: mostly(fc.constant("/v1/pets"), target),
  credential: mostly(unlimited, credential),
  contentType: mostly(fc.constant("application/json"), contentType),
  contentLength,
  headers,
  body,
  remoteAddress
})

/** `GET /v1/pets?...` or `GET /v1/pets/{id}`, with a key that is never limited: the target is hostile. */
const readRequest: fc.Arbitrary<HostileRequest> = fc.record({
  method: fc.constant("GET"),
  target: fc.oneof(
    query.map((q) => `/v1/pets?${q}`),
    fc.tuple(idText, fc.option(query, { nil: undefined })).map(([id, q]) =>
      `/v1/pets/${id}${q === undefined ? "" : `?${q}`}`
    ),
    target
  ),
  credential: mostly(unlimited, credential),
  contentType: fc.constant(undefined),
  contentLength: fc.constant(undefined),
  headers,
  body: fc.constant(undefined),
  remoteAddress
})

/**
 * Any request, biased towards `POST /v1/pets` and `GET /v1/pets` with a key
 * that is never limited, so that most requests reach validation.
 */
export const hostileRequest: fc.Arbitrary<HostileRequest> = fc.oneof(
  { weight: 5, arbitrary: createRequest },
  { weight: 2, arbitrary: readRequest },
  { weight: 3, arbitrary: anyRequest }
).map((request) => Object.assign(request, { [fc.toStringMethod]: () => describeRequest(request) }))

const preview = (text: string): string => text.length <= 160 ? text : `${text.slice(0, 160)}... (${text.length} chars)`

/** A counterexample as fast-check prints it: long strings cut, the body as text when it is UTF-8. */
const describeRequest = (request: HostileRequest): string => {
  let body: string | undefined
  if (request.body !== undefined) {
    try {
      body = `utf8 ${JSON.stringify(preview(utf8.decode(request.body)))}`
    } catch {
      body = `bytes [${Array.from(request.body.subarray(0, 80)).join(",")}${request.body.length > 80 ? ",..." : ""}] (${request.body.length} bytes)`
    }
  }
  return JSON.stringify(
    {
      ...request,
      target: preview(request.target),
      credential: { kind: request.credential.kind, header: request.credential.header && preview(request.credential.header) },
      headers: request.headers.map(([name, value]) => [name, preview(value)]),
      body
    },
    null,
    1
  )
}

/** The body the request carries: none on a GET or HEAD, as `Request` requires. */
export const sentBody = (hostile: HostileRequest): Uint8Array | undefined =>
  ["GET", "HEAD"].includes(normalizeMethod(hostile.method)) ? undefined : hostile.body

/** The web `Request`, with its `sentBody`. */
export const toRequest = (hostile: HostileRequest): Request => {
  const requestHeaders = new Headers()
  for (const [headerName, value] of hostile.headers) requestHeaders.append(headerName, value)
  if (hostile.credential.header !== undefined) requestHeaders.set("authorization", hostile.credential.header)
  if (hostile.contentType !== undefined) requestHeaders.set("content-type", hostile.contentType)
  const body = sentBody(hostile)
  if (hostile.contentLength !== undefined) {
    requestHeaders.set("content-length", hostile.contentLength === "exact" ? String(body?.length ?? 0) : hostile.contentLength)
  }
  return new Request(`http://animal-store.test${hostile.target}`, {
    method: hostile.method,
    headers: requestHeaders,
    ...(body === undefined ? {} : { body })
  })
}

// Oracle ----------------------------------------------------------------------------------------

export interface StoredPet {
  readonly id: number
  readonly name: string
  readonly categoryId: number
  readonly status: string
}

const utf8 = new TextDecoder("utf-8", { fatal: true })

/** Whether `text` has an unpaired surrogate (it is then not Unicode text). */
const hasLoneSurrogate = (text: string): boolean => /\p{Cs}/u.test(text)

/**
 * What a body stores when it is a valid `NewPet` (decisions.md), written
 * independently of core: UTF-8 JSON of at most 65,536 bytes; an object with
 * only `name`, `categoryId` and `status`; `name` a string of 1 to 255 code
 * points after trimming (and Unicode text); `categoryId` an integer from 1 to
 * 2^53-1; `status` one of the three, `available` when omitted.
 */
export const newPetOf = (bytes: Uint8Array | undefined): Omit<StoredPet, "id"> | undefined => {
  if (bytes === undefined || bytes.length > maxBodyBytes) return undefined
  let value: unknown
  try {
    value = JSON.parse(utf8.decode(bytes))
  } catch {
    return undefined
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) return undefined
  if (!Object.keys(value).every((k) => ["name", "categoryId", "status"].includes(k))) return undefined
  const { categoryId, name, status = "available" } = value as Record<string, unknown>
  if (typeof name !== "string" || hasLoneSurrogate(name)) return undefined
  const trimmed = name.trim()
  const codePoints = [...trimmed].length
  if (codePoints < 1 || codePoints > 255) return undefined
  if (typeof categoryId !== "number" || !Number.isSafeInteger(categoryId) || categoryId < 1) return undefined
  if (typeof status !== "string" || !["available", "pending", "sold"].includes(status)) return undefined
  return { name: trimmed, categoryId, status }
}

/** Whether a `Content-Type` is JSON: `application/json` in any case, parameters allowed. */
/**
 * Whether a request is ambiguous (decisions.md: more than one `Host`,
 * `Authorization`, `Content-Length` or `Content-Type`) as a web `Request`
 * shows it: its `Headers` join a repeated field's values with ", ", which a
 * host name, a length or a media type never holds, and after which a second
 * credentials starts with its scheme.
 */
export const isAmbiguous = (request: Request): boolean => {
  const joined = (name: string) => request.headers.get(name)?.includes(", ") === true
  const credentials = request.headers.get("authorization")?.split(", ").slice(1) ?? []
  return joined("host") || joined("content-length") || joined("content-type") ||
    credentials.some((part) => /^[!#$%&'*+.^_`|~0-9A-Za-z-]+( |$)/.test(part))
}

/** Whether the body is sent as it is: no `Content-Encoding`, or `identity`. */
export const isIdentityEncoded = (request: Request): boolean => {
  const encoding = request.headers.get("content-encoding")
  return encoding === null || ["", "identity"].includes(encoding.trim().toLowerCase())
}

export const isJsonMediaType = (value: string | null): boolean =>
  value !== null && value.split(";")[0]!.trim().toLowerCase() === "application/json"

/** Whether `value` has the shape of a `Pet` in a response. */
export const isPet = (value: unknown): value is StoredPet => {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false
  const pet = value as Record<string, unknown>
  return Object.keys(pet).sort().join(",") === "categoryId,id,name,status" &&
    Number.isSafeInteger(pet["id"]) && (pet["id"] as number) >= 1 &&
    Number.isSafeInteger(pet["categoryId"]) && (pet["categoryId"] as number) >= 1 &&
    typeof pet["name"] === "string" && pet["name"].length > 0 && pet["name"].trim() === pet["name"] &&
    typeof pet["status"] === "string" && ["available", "pending", "sold"].includes(pet["status"])
}
