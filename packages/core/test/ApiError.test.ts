import { describe, expect, it } from "@effect/vitest"
import type { ApiError, Description } from "../src/ApiError.js"
import * as Errors from "../src/ApiError.js"
import { StoreError } from "../src/StoreError.js"

describe("ApiError", () => {
  it("each failure tells its domain code and its message; only invalid_request has details", () => {
    const details = [{ path: "name", message: "is missing" }]
    const cases: ReadonlyArray<readonly [ApiError, Description]> = [
      [
        new Errors.InvalidRequest({ message: "Invalid pet: name is missing", details }),
        { code: "invalid_request", message: "Invalid pet: name is missing", details }
      ],
      [new Errors.Unauthorized({ reason: "missing" }), { code: "unauthorized", message: "A bearer API key is required" }],
      [new Errors.Unauthorized({ reason: "expired" }), { code: "unauthorized", message: "The API key has expired" }],
      [new Errors.Unauthorized({ reason: "revoked" }), { code: "unauthorized", message: "The API key is invalid" }],
      [new Errors.PetNotFound({ id: 42 }), { code: "not_found", message: "No pet with id 42" }],
      [new Errors.RateLimited({ retryAfter: 17 }), { code: "rate_limited", message: "Rate limit exceeded; retry after 17 seconds" }],
      [
        new Errors.ApiKeyBanned({ retryAfter: 900 }),
        {
          code: "api_key_banned",
          message: "API key temporarily banned for requests after a rate limit refusal; retry after 900 seconds"
        }
      ],
      [
        new Errors.Gone({ operation: "getPet", sunset: new Date("2030-12-05T00:00:00Z") }),
        { code: "gone", message: "getPet was removed on Thu, 05 Dec 2030 00:00:00 GMT" }
      ],
      [
        new Errors.IdempotencyKeyReused(),
        {
          code: "idempotency_key_reused",
          message: "This Idempotency-Key was already used with another request body in the last 24 hours"
        }
      ],
      [
        new Errors.IdempotencyKeyInUse(),
        { code: "idempotency_key_in_use", message: "A request with this Idempotency-Key is still being processed; retry later" }
      ]
    ]
    for (const [error, description] of cases) {
      expect(Errors.describe(error)).toStrictEqual(description)
      expect(Errors.ErrorCode.literals).toContain(error.code)
    }
  })

  it("a store failure discloses nothing: service_unavailable when the store cannot be reached, else internal_error", () => {
    expect(Errors.describe(new StoreError({ reason: "Unavailable", message: "connect ECONNREFUSED 10.0.0.5:5432" })))
      .toStrictEqual({ code: "service_unavailable", message: "The service cannot reach its store; retry later" })
    for (const reason of ["ReadOnly", "Corrupt", "Incompatible", "Unknown"] as const) {
      expect(Errors.describe(new StoreError({ reason, message: "SQLITE_CORRUPT: /srv/data/store.db" })))
        .toStrictEqual({ code: "internal_error", message: "An internal error occurred" })
    }
    expect(Errors.ErrorCode.literals).toEqual(expect.arrayContaining(["internal_error", "service_unavailable"]))
  })

  it("core's codes are the domain's: none that only HTTP raises", () => {
    for (const code of ["method_not_allowed", "payload_too_large", "unsupported_media_type", "expectation_failed"]) {
      expect(Errors.ErrorCode.literals).not.toContain(code)
    }
  })
})
