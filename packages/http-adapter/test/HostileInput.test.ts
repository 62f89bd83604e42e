import { AccessConfig, AnimalStore, ApiKeyAuth, PetOperations } from "@animal-store/core"
import { describe, expect, it } from "@effect/vitest"
import { Effect, FastCheck as fc, Layer, ManagedRuntime, Redacted, Schema } from "effect"
import * as ProtocolError from "../src/ProtocolError.js"
import * as WebHandler from "../src/WebHandler.js"
import type { HostileRequest, StoredPet } from "./support/HostileRequest.js"
import {
  hostileRequest,
  isAmbiguous,
  isIdentityEncoded,
  isJsonMediaType,
  isPet,
  keys,
  maxBodyBytes,
  newPetOf,
  sentBody,
  toRequest
} from "./support/HostileRequest.js"
import { portsOf, storeKinds } from "./support/TestServer.js"
import type { StoreKind } from "./support/TestServer.js"
import * as Zlib from "node:zlib"

/** Runs per store; together they stay within the suite's budget (~15 s). */
const numRuns = Number(process.env["HOSTILE_RUNS"] ?? 1_000)

/** The web handler on a fresh store of `kind`, with the keys of `HostileRequest`, and the trusted listing. */
const makeHandler = (kind: StoreKind) =>
  Effect.gen(function*() {
    const ports = yield* portsOf(kind)
    const services = AnimalStore.layer.pipe(Layer.provide(AccessConfig.layer()), Layer.provide(ports))
    const runtime = ManagedRuntime.make(services)
    const web = WebHandler.make(services, { memoMap: runtime.memoMap, accessLog: false })
    yield* Effect.addFinalizer(() => Effect.promise(() => web.dispose().then(() => runtime.dispose())))
    yield* Effect.promise(() =>
      runtime.runPromise(Effect.orDie(Effect.gen(function*() {
        const auth = yield* ApiKeyAuth.ApiKeyAuth
        const unlimited = 1_000_000_000
        yield* auth.provision(Redacted.make(keys.unlimited), {
          plan: "enterprise",
          limits: { perMinute: unlimited, perDay: unlimited }
        })
        yield* auth.provision(Redacted.make(keys.tiny), { plan: "enterprise", limits: { perMinute: 5, perDay: 1_000 } })
        yield* auth.provision(Redacted.make(keys.staging), { plan: "pro", environment: "staging" })
        const revoked = yield* auth.provision(Redacted.make(keys.revoked), { plan: "pro" })
        yield* auth.revoke(revoked.id)
      })))
    )
    /** Every stored animal, read through core's trusted operations. */
    const stored = () =>
      runtime.runPromise(Effect.orDie(Effect.gen(function*() {
        const operations = yield* PetOperations.PetOperations
        const all: Array<StoredPet> = []
        let cursor: string | undefined
        do {
          const page = yield* operations.listPets(cursor === undefined ? { limit: 100 } : { limit: 100, cursor })
          all.push(...page.pets.map(({ categoryId, id, name, status }) => ({ id, name, categoryId, status })))
          cursor = page.nextCursor
        } while (cursor !== undefined)
        return all
      })))
    return { web, stored }
  })

type Expected =
  | { readonly _tag: "Status"; readonly status: number }
  | { readonly _tag: "Options" }
  | { readonly _tag: "List" }
  | { readonly _tag: "Document"; readonly path: string }

const status = (code: number): Expected => ({ _tag: "Status", status: code })

const declaresOverLimit = (request: Request): boolean => {
  const declared = request.headers.get("content-length")
  return declared !== null && /^[0-9]+$/.test(declared) && Number(declared) > maxBodyBytes
}

const decodedSegment = (segment: string): string | undefined => {
  try {
    return decodeURIComponent(segment)
  } catch {
    return undefined
  }
}

/**
 * What a request gets when it is not refused (401, 429), from decisions.md
 * alone: the route by path and method (`operation` when it is one of the
 * three, which need a key), then the rules of the operation.
 */
const expectedOf = (
  hostile: HostileRequest,
  request: Request,
  acknowledged: ReadonlyArray<StoredPet>
): { readonly operation: boolean; readonly expected: Expected } => {
  const { pathname } = new URL(request.url)
  const method = request.method
  const other = (expected: Expected) => ({ operation: false, expected })
  const operation = (expected: Expected) => ({ operation: true, expected })
  const petId = /^\/v1\/pets\/([^/]+)$/.exec(pathname)?.[1]
  const known = pathname === "/v1/pets" || petId !== undefined || pathname === "/v1/openapi.json" ||
    pathname === "/v1/docs"
  if (known && method === "OPTIONS") return other({ _tag: "Options" })
  if (pathname === "/v1/pets") {
    if (method === "GET" || method === "HEAD") return operation({ _tag: "List" })
    if (method !== "POST") return other(status(405))
    if (!isJsonMediaType(request.headers.get("content-type"))) return operation(status(415))
    if (!isIdentityEncoded(request)) return operation(status(415))
    const body = sentBody(hostile)
    if (declaresOverLimit(request) || (body?.length ?? 0) > maxBodyBytes) return operation(status(413))
    return operation(status(newPetOf(body) === undefined ? 400 : 201))
  }
  if (petId !== undefined) {
    if (method !== "GET" && method !== "HEAD") return other(status(405))
    const id = decodedSegment(petId)
    if (id === undefined || !/^[0-9]{1,20}$/.test(id) || !Number.isSafeInteger(Number(id)) || Number(id) < 1) {
      return operation(status(400))
    }
    return operation(status(acknowledged.some((pet) => pet.id === Number(id)) ? 200 : 404))
  }
  if (pathname === "/v1/openapi.json" || pathname === "/v1/docs") {
    return other(method === "GET" || method === "HEAD" ? { _tag: "Document", path: pathname } : status(405))
  }
  return other(status(404))
}

const expectRateLimitHeaders = (response: Response) => {
  for (const field of ["x-ratelimit-limit", "x-ratelimit-remaining", "x-ratelimit-reset"]) {
    expect(String(response.headers.get(field)), field).toMatch(/^[0-9]+$/)
  }
  expect(String(response.headers.get("ratelimit-policy"))).toMatch(/^"minute";q=\d+;w=60/)
  expect(String(response.headers.get("ratelimit"))).toMatch(/^"minute";r=\d+;t=\d+/)
}

const decodeErrorBody = Schema.decodeUnknownSync(ProtocolError.ErrorBody)

const expectErrorBody = (response: Response, text: string) => {
  expect(response.headers.get("content-type")).toBe("application/json; charset=utf-8")
  const body = decodeErrorBody(JSON.parse(text), { onExcessProperty: "error" })
  expect(body.status).toBe(response.status)
  expect(ProtocolError.statusByCode[body.code]).toBe(response.status)
  if (response.status === 401) expect(response.headers.get("www-authenticate")).toMatch(/^Bearer realm="animal-store"/)
  if (response.status === 405) {
    expect(response.headers.get("allow")).toMatch(/^GET, HEAD, OPTIONS(, POST)?$/)
  }
  if (response.status === 429) expect(response.headers.get("retry-after")).toMatch(/^[0-9]+$/)
}

const byId = (pets: ReadonlyArray<StoredPet>) => new Map(pets.map((pet) => [pet.id, pet]))

describe.each(storeKinds)("the web handler under hostile input, %s store", (kind) => {
  it.scoped(
    "never answers 5xx, always answers an Error body with the rate-limit headers, and changes the store only by valid createPet calls",
    () =>
      Effect.gen(function*() {
        const { stored, web } = yield* makeHandler(kind)
        const acknowledged: Array<StoredPet> = []
        const property = fc.asyncProperty(hostileRequest, async (hostile) => {
          const request = toRequest(hostile)
          const { expected, operation } = expectedOf(hostile, request, acknowledged)
          const response = await web.handler(
            request,
            hostile.remoteAddress === undefined ? undefined : { remoteAddress: hostile.remoteAddress }
          )
          // A document may be sent compressed (`Accept-Encoding`): read as its client would.
          const bytes = Buffer.from(await response.arrayBuffer())
          const encoding = response.headers.get("content-encoding")
          const text = (encoding === "br" ? Zlib.brotliDecompressSync(bytes) : encoding === "gzip" ? Zlib.gunzipSync(bytes) : bytes)
            .toString("utf8")

          expect(response.status, text.slice(0, 300)).toBeLessThan(500)
          expectRateLimitHeaders(response)
          if (request.method === "HEAD") expect(text).toBe("")
          else if (response.status >= 300) expectErrorBody(response, text)

          const { kind } = hostile.credential
          if (isAmbiguous(request)) {
            // refused before anything else, in the client address's bucket
            expect(response.status, text.slice(0, 300)).toBe(400)
          } else if (response.status === 429) {
            expect(kind).not.toBe("unlimited")
          } else if (operation && kind !== "unlimited" && kind !== "tiny") {
            expect(response.status).toBe(401)
          } else if (expected._tag === "Options") {
            expect(response.status).toBe(204)
            expect(response.headers.get("allow")).toMatch(/^GET, HEAD, OPTIONS(, POST)?$/)
          } else if (expected._tag === "Status") {
            expect(response.status, text.slice(0, 300)).toBe(expected.status)
          } else {
            expect(expected._tag === "List" ? [200, 400] : [200]).toContain(response.status)
          }

          if (response.status === 201) {
            const pet: unknown = JSON.parse(text)
            expect(isPet(pet)).toBe(true)
            expect(pet).toEqual({ id: (pet as StoredPet).id, ...newPetOf(sentBody(hostile)) })
            expect((pet as StoredPet).id).toBeGreaterThan(acknowledged.at(-1)?.id ?? 0)
            expect(response.headers.get("location")).toBe(`/v1/pets/${(pet as StoredPet).id}`)
            acknowledged.push(pet as StoredPet)
          } else if (response.status < 300 && request.method !== "OPTIONS") {
            expect(response.status).toBe(200)
            expect(["GET", "HEAD"]).toContain(request.method)
            if (request.method === "HEAD") {
              // the status and headers of the GET, no body
            } else if (expected._tag === "Document") {
              if (expected.path === "/v1/docs") expect(response.headers.get("content-type")).toMatch(/^text\/html/)
              else expect(JSON.parse(text)).toMatchObject({ openapi: expect.stringMatching(/^3\./) })
            } else if (expected._tag === "List") {
              const pets: unknown = JSON.parse(text)
              expect(Array.isArray(pets)).toBe(true)
              const known = byId(acknowledged)
              const ids = (pets as Array<unknown>).map((pet) => {
                expect(isPet(pet)).toBe(true)
                expect(pet).toEqual(known.get((pet as StoredPet).id))
                return (pet as StoredPet).id
              })
              expect(ids).toEqual([...ids].sort((a, b) => a - b))
              expect(ids.length).toBeLessThanOrEqual(100)
            } else {
              const pet: unknown = JSON.parse(text)
              expect(isPet(pet)).toBe(true)
              expect(pet).toEqual(byId(acknowledged).get((pet as StoredPet).id))
              expect(response.headers.get("sunset")).toBe("Thu, 05 Dec 2030 00:00:00 GMT")
            }
          }

          expect(await stored()).toEqual(acknowledged)
        })
        yield* Effect.promise(() => fc.assert(property, { numRuns }))
        expect(acknowledged.length).toBeGreaterThan(0)
      }),
    30_000
  )
})
