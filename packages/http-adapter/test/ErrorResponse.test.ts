import { AnimalStoreError, ApiError, StoreError } from "@animal-store/core"
import { describe, expect, it } from "@effect/vitest"
import { Either, JSONSchema, Schema } from "effect"
import * as fc from "effect/FastCheck"
import { body as toBody } from "../src/ErrorResponse.js"
import type { ErrorCode } from "../src/ProtocolError.js"
import { ErrorBody, makeBody, ProtocolCode, statusByCode } from "../src/ProtocolError.js"

const codes = Object.keys(statusByCode) as ReadonlyArray<ErrorCode>

describe("ErrorResponse", () => {
  it("the codes are the closed set of decisions.md, each with its HTTP status", () => {
    expect(statusByCode).toEqual({
      invalid_request: 400,
      unauthorized: 401,
      not_found: 404,
      method_not_allowed: 405,
      gone: 410,
      payload_too_large: 413,
      unsupported_media_type: 415,
      expectation_failed: 417,
      rate_limited: 429,
      api_key_banned: 429,
      idempotency_key_in_use: 409,
      idempotency_key_reused: 422,
      internal_error: 500,
      service_unavailable: 503
    })
  })

  it.prop(
    "a body has the status of its code, and details only when given",
    {
      code: fc.constantFrom(...codes),
      message: fc.string(),
      details: fc.option(fc.array(fc.record({ path: fc.string(), message: fc.string() }), { maxLength: 3 }), {
        nil: undefined
      })
    },
    ({ code, details, message }) => {
      const body = makeBody(code, message, details)
      expect(body).toStrictEqual(
        details === undefined
          ? { code, message, status: statusByCode[code] }
          : { code, message, status: statusByCode[code], details }
      )
      expect(Schema.decodeUnknownSync(ErrorBody)(body)).toStrictEqual(body)
    }
  )

  it("the Error body schema refuses an unknown code, a status that is not an integer, missing fields", () => {
    expect(JSONSchema.make(ErrorBody)).toMatchObject({
      $ref: "#/$defs/Error",
      $defs: { Error: { required: ["code", "message", "status"] } }
    })
    const valid = { code: "not_found", message: "No pet with id 1", status: 404 }
    expect(Either.isRight(Schema.decodeUnknownEither(ErrorBody)(valid))).toBe(true)
    for (
      const body of [
        { ...valid, code: "teapot" },
        { ...valid, status: 404.5 },
        { code: "not_found", status: 404 },
        { code: "not_found", message: "m" },
        { ...valid, details: [{ path: "x" }] }
      ]
    ) {
      expect(Either.isLeft(Schema.decodeUnknownEither(ErrorBody)(body))).toBe(true)
    }
  })

  it("each failure has its code and a message that says what happened, without the credential", () => {
    const sunset = new Date("2030-12-05T00:00:00Z")
    const cases: ReadonlyArray<readonly [ApiError.ApiError, ReturnType<typeof makeBody>]> = [
      [
        new ApiError.InvalidRequest({ message: "Invalid pet: name is missing", details: [{ path: "name", message: "is missing" }] }),
        {
          code: "invalid_request",
          message: "Invalid pet: name is missing",
          status: 400,
          details: [{ path: "name", message: "is missing" }]
        }
      ],
      [new ApiError.Unauthorized({ reason: "missing" }), { code: "unauthorized", message: "A bearer API key is required", status: 401 }],
      [new ApiError.PetNotFound({ id: 42 }), { code: "not_found", message: "No pet with id 42", status: 404 }],
      [
        new ApiError.RateLimited({ retryAfter: 17 }),
        { code: "rate_limited", message: "Rate limit exceeded; retry after 17 seconds", status: 429 }
      ],
      [
        new ApiError.ApiKeyBanned({ retryAfter: 900 }),
        {
          code: "api_key_banned",
          message: "API key temporarily banned for requests after a rate limit refusal; retry after 900 seconds",
          status: 429
        }
      ],
      [
        new ApiError.Gone({ operation: "getPet", sunset }),
        { code: "gone", message: "getPet was removed on Thu, 05 Dec 2030 00:00:00 GMT", status: 410 }
      ],
      [
        new ApiError.IdempotencyKeyReused(),
        {
          code: "idempotency_key_reused",
          message: "This Idempotency-Key was already used with another request body in the last 24 hours",
          status: 422
        }
      ],
      [
        new ApiError.IdempotencyKeyInUse(),
        {
          code: "idempotency_key_in_use",
          message: "A request with this Idempotency-Key is still being processed; retry later",
          status: 409
        }
      ]
    ]
    for (const [error, body] of cases) {
      expect(toBody(error)).toStrictEqual(body)
      expect(error.message).toBe(body.message)
    }
    expect(cases.map(([error]) => error._tag)).toStrictEqual([
      "InvalidRequest",
      "Unauthorized",
      "PetNotFound",
      "RateLimited",
      "ApiKeyBanned",
      "Gone",
      "IdempotencyKeyReused",
      "IdempotencyKeyInUse"
    ])
    for (const reason of ApiError.UnauthorizedReason.literals.filter((reason) => reason !== "missing" && reason !== "expired")) {
      expect(toBody(new ApiError.Unauthorized({ reason }))).toStrictEqual({
        code: "unauthorized",
        message: "The API key is invalid",
        status: 401
      })
    }
    // Expiry is the one reason named: the key's owner needs it, and it tells nothing of other keys.
    expect(toBody(new ApiError.Unauthorized({ reason: "expired" }))).toStrictEqual({
      code: "unauthorized",
      message: "The API key has expired",
      status: 401
    })
  })

  it("a store failure discloses nothing: 503 when the store cannot be reached, else 500", () => {
    expect(toBody(new StoreError.StoreError({ reason: "Unavailable", message: "connect ECONNREFUSED 10.0.0.5:5432" })))
      .toStrictEqual({
        code: "service_unavailable",
        message: "The service cannot reach its store; retry later",
        status: 503
      })
    for (const reason of ["ReadOnly", "Corrupt", "Incompatible", "Unknown"] as const) {
      expect(toBody(new StoreError.StoreError({ reason, message: "SQLITE_CORRUPT: /srv/data/store.db" }))).toStrictEqual({
        code: "internal_error",
        message: "An internal error occurred",
        status: 500
      })
    }
  })

  it("the codes are core's domain codes and the protocol-only ones; the facade's statuses are these", () => {
    expect(Object.keys(statusByCode).sort()).toEqual([...ApiError.ErrorCode.literals, ...ProtocolCode.literals].sort())
    for (const code of ApiError.ErrorCode.literals) {
      expect([code, new AnimalStoreError.AnimalStoreError(code, "m", undefined, undefined).status])
        .toEqual([code, statusByCode[code]])
    }
  })
})
