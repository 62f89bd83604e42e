import { describe, expect, it } from "@effect/vitest"
import { Validator } from "@seriousme/openapi-schema-validator"
import { Effect } from "effect"
import * as OpenApiDocument from "../src/OpenApiDocument.js"
import * as PetsApi from "../src/PetsApi.js"
import * as Routes from "../src/Routes.js"
import * as DocumentValidator from "./support/DocumentValidator.js"

const servers = { production: "https://api.example.com/v1", staging: "https://staging.example.com/v1" }
const spec = OpenApiDocument.make(servers) as unknown as Record<string, any>
const operations = () =>
  Object.values<Record<string, any>>(spec.paths).flatMap((methods) => Object.values<Record<string, any>>(methods))
const operation = (id: string) => operations().find((op) => op.operationId === id)!

describe("the OpenAPI document", () => {
  it.effect("is a valid OpenAPI 3.1 document", () =>
    Effect.gen(function*() {
      const result = yield* Effect.promise(() => new Validator().validate(structuredClone(spec)))
      expect(result.errors).toBeUndefined()
      expect(result.valid).toBe(true)
      expect(spec.openapi).toBe("3.1.0")
    }))

  it("has version 1.0.0 and both base addresses as servers; unconfigured ones are the address listened on", () => {
    expect(OpenApiDocument.resolveServers({ production: servers.production }, "http://127.0.0.1:18555")).toEqual({
      production: servers.production,
      staging: "http://127.0.0.1:18555/v1"
    })
    expect(OpenApiDocument.resolveServers(undefined, undefined)).toEqual(OpenApiDocument.defaultServers)
    expect(spec.info.version).toBe("1.0.0")
    expect(spec.servers).toEqual([
      { url: servers.production, description: "Production" },
      { url: servers.staging, description: "Staging" }
    ])
  })

  it("describes the three operations relative to the servers, by the interface's names, bearer-secured, getPet deprecated", () => {
    expect(Object.keys(spec.paths).sort()).toEqual(["/pets", "/pets/{petId}"])
    expect(Object.keys(spec.paths["/pets"]).sort()).toEqual(["get", "post"])
    expect(operations().map((op) => op.operationId).sort()).toEqual(["createPet", "getPet", "listPets"])
    expect(operation("getPet").parameters).toEqual([
      expect.objectContaining({
        name: "petId",
        in: "path",
        required: true,
        schema: expect.objectContaining({ type: "integer", format: "int64", minimum: 1, maximum: 2 ** 53 - 1 })
      })
    ])
    expect(operation("listPets").parameters.find((p: { name: string }) => p.name === "status").schema.enum).toEqual([
      "available",
      "pending",
      "sold"
    ])
    expect(spec.components.schemas.Pets).toEqual({ type: "array", items: { $ref: "#/components/schemas/Pet" } })
    expect(spec.components.schemas.NewPet.required).toEqual(["name", "categoryId"])
    expect(spec.components.schemas.NewPet.properties.categoryId).toMatchObject({ type: "integer", format: "int64" })
    expect(operation("listPets").responses["200"].content["application/json"].schema).toEqual({
      $ref: "#/components/schemas/Pets"
    })
    expect(spec.components.securitySchemes.bearer).toMatchObject({ type: "http", scheme: "bearer" })
    for (const op of operations()) expect(op.security).toEqual([{ bearer: [] }])
    expect(operation("getPet").deprecated).toBe(true)
    expect(operation("listPets").deprecated).toBeUndefined()
    expect(operation("listPets").parameters.find((p: { name: string }) => p.name === "limit").schema).toMatchObject({
      type: "integer",
      minimum: 1,
      maximum: 100,
      default: 20
    })
    expect(spec.components.schemas.Pet.properties.id).toMatchObject({ type: "integer", format: "int64" })
    expect(operation("createPet").requestBody.content["application/json"].schema).toEqual({
      $ref: "#/components/schemas/NewPet"
    })
  })

  it("routes and documents each operation of the route table under its method and path", () => {
    for (const [name, endpoint] of Object.entries(PetsApi.endpoints)) {
      const documentPath = endpoint.path.replace(/:(\w+)/g, "{$1}")
      expect(spec.paths[documentPath][endpoint.method.toLowerCase()].operationId).toBe(name)
      const concrete = PetsApi.basePath + endpoint.path.replace(/:\w+/g, "42")
      expect(Routes.match(endpoint.method, concrete)).toEqual(
        { _tag: "Operation", operation: name, params: endpoint.path.includes(":petId") ? { petId: "42" } : {} }
      )
    }
    expect(Routes.match("GET", PetsApi.openApiPath)).toEqual({ _tag: "Document" })
    expect(Routes.match("GET", PetsApi.docsPath)).toEqual({ _tag: "Document" })
  })

  it("documents 401 and 429 with the Error body, and the rate-limit headers on every response", () => {
    for (const op of operations()) {
      expect(op.responses["401"].headers["WWW-Authenticate"]).toBeDefined()
      expect(op.responses["429"].headers["Retry-After"]).toBeDefined()
      for (const [status, response] of Object.entries<Record<string, any>>(op.responses)) {
        for (const name of ["X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset", "RateLimit", "RateLimit-Policy"]) {
          expect(response.headers[name], `${op.operationId} ${status} ${name}`).toEqual({
            ...spec.components.headers[name],
            required: true
          })
        }
        if (Number(status) >= 400) {
          expect(response.content["application/json"].schema).toEqual({ $ref: "#/components/schemas/Error" })
        }
      }
    }
    expect(spec.components.schemas.Error.required).toEqual(["code", "message", "status"])
    expect(spec.components.schemas.HttpApiDecodeError).toBeUndefined()
    expect(operation("createPet").responses["201"].headers.Location).toBeDefined()
    expect(Object.keys(operation("getPet").responses["200"].headers)).toEqual(
      expect.arrayContaining(["Deprecation", "Sunset", "Link"])
    )
  })
})

describe("the validator of responses against the document (used by every end-to-end test)", () => {
  const validate = DocumentValidator.make(spec)
  const rateLimit = {
    "x-ratelimit-limit": "60",
    "x-ratelimit-remaining": "59",
    "x-ratelimit-reset": "1795258140",
    "ratelimit-policy": "\"minute\";q=60;w=60",
    "ratelimit": "\"minute\";r=59;t=29"
  }
  const response = (status: number, headers: Record<string, string>, body: string) =>
    [new Response(status === 204 ? null : body, { status, headers: { "content-type": "application/json", ...headers } }), body] as const
  const pet = { id: 1, name: "Rex", categoryId: 1, status: "available" }

  it("accepts responses as documented", () => {
    expect(validate("GET", "/v1/pets", ...response(200, rateLimit, JSON.stringify([pet])))).toEqual([])
    expect(validate("POST", "/v1/pets", ...response(201, { ...rateLimit, location: "/v1/pets/1" }, JSON.stringify(pet))))
      .toEqual([])
    expect(validate("DELETE", "/v1/pets", ...response(405, { allow: "GET" }, JSON.stringify({ code: "method_not_allowed", message: "x", status: 405 }))))
      .toEqual([])
  })

  it("reports an undocumented status, a body off its schema, and a missing or malformed header", () => {
    expect(validate("GET", "/v1/pets", ...response(418, rateLimit, "[]"))[0]).toMatch(/status 418 is not documented/)
    expect(validate("GET", "/v1/pets", ...response(200, rateLimit, JSON.stringify([{ ...pet, id: "1" }])))[0]).toMatch(/body/)
    expect(validate("GET", "/v1/pets/1", ...response(200, rateLimit, JSON.stringify(pet))).join("\n")).toMatch(/Deprecation is missing/)
    expect(validate("POST", "/v1/pets", ...response(201, rateLimit, JSON.stringify(pet)))[0]).toMatch(/Location is missing/)
    expect(validate("GET", "/v1/pets", ...response(200, { ...rateLimit, "x-ratelimit-limit": "many" }, "[]"))[0])
      .toMatch(/X-RateLimit-Limit/)
    expect(validate("GET", "/v1/nothing", ...response(404, {}, JSON.stringify({ code: "nope" })))[0]).toMatch(/body/)
  })
})
