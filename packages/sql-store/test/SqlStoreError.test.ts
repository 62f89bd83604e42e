import { StoreError } from "@animal-store/core"
import { describe, expect, it } from "@effect/vitest"
import { SqlError } from "@effect/sql/SqlError"
import { Effect, Exit } from "effect"
import { SqlStoreError } from "../src/index.js"

// Tables shaped like the two stores': one by code prefix and message, one by result code.
const server = SqlStoreError.make({
  isCode: (code) => code.length > 0,
  rules: [
    { code: /^(08|ECONNREFUSED$)/, reason: "Unavailable", hint: "the server cannot be reached" },
    { code: /^25006$/, reason: "ReadOnly", hint: "the database is read-only" },
    { message: /Connection terminated/, reason: "Unavailable", hint: "the connection failed" }
  ],
  hints: { Unavailable: "the server cannot be reached", Unknown: "the server reported an error" }
})
const file = SqlStoreError.make({
  isCode: (code) => code.startsWith("SQLITE_"),
  rules: [
    { code: /^SQLITE_BUSY/, reason: "Unavailable", hint: "the file is locked" },
    { code: /./, reason: "Unknown", hint: "SQLite reported an error" }
  ],
  hints: { Corrupt: "not a database", Unknown: "SQLite reported an error" }
})

const failure = (code: string | undefined, message: string) =>
  new SqlError({ message: "Failed to execute statement", cause: Object.assign(new Error(message), code === undefined ? {} : { code }) })

describe("SqlStoreError", () => {
  it("takes the reason of the first rule the code or the messages match, and names what was done", () => {
    const error = SqlStoreError.fromCause(server, "Reading an animal", failure("08006", "the server closed"))
    expect(error).toBeInstanceOf(StoreError.StoreError)
    expect(error.reason).toBe("Unavailable")
    expect(error.message).toBe(
      "Reading an animal: the server cannot be reached (08006: Failed to execute statement: the server closed)"
    )
    expect(SqlStoreError.fromCause(server, "Writing", failure("25006", "read-only")).reason).toBe("ReadOnly")
    expect(SqlStoreError.fromCause(server, "Writing", failure(undefined, "Connection terminated unexpectedly")))
      .toMatchObject({ reason: "Unavailable", message: "Writing: the connection failed (error: Failed to execute statement: Connection terminated unexpectedly)" })
  })

  it("without a matching rule, the fallback's hint, else Unknown's", () => {
    expect(SqlStoreError.fromCause(server, "Writing", failure("23505", "duplicate"))).toMatchObject({
      reason: "Unknown",
      message: "Writing: the server reported an error (23505: Failed to execute statement: duplicate)"
    })
    expect(SqlStoreError.fromCause(server, "Opening", failure("XX", "x"), "Unavailable").message).toMatch(
      /^Opening: the server cannot be reached/
    )
    expect(SqlStoreError.fromCause(server, "Opening", failure("XX", "x"), "Corrupt")).toMatchObject({
      reason: "Corrupt",
      message: "Opening: the server reported an error (XX: Failed to execute statement: x)"
    })
    // Codes the table does not call its own are not read.
    expect(SqlStoreError.fromCause(file, "Opening", failure("ENOENT", "gone"), "Corrupt")).toMatchObject({
      reason: "Corrupt",
      message: "Opening: not a database (error: Failed to execute statement: gone)"
    })
    expect(SqlStoreError.fromCause(file, "Opening", failure("SQLITE_BUSY_SNAPSHOT", "busy")).reason).toBe("Unavailable")
    expect(SqlStoreError.fromCause(file, "Opening", failure("SQLITE_ERROR", "no such table"), "Corrupt").reason).toBe("Unknown")
  })

  it.effect("maps failures and driver defects, keeps other defects and StoreErrors", () =>
    Effect.gen(function*() {
      const mapped = yield* Effect.exit(Effect.fail(failure("SQLITE_BUSY", "locked")).pipe(SqlStoreError.mapError(file, "Listing")))
      expect(mapped).toEqual(Exit.fail(SqlStoreError.fromCause(file, "Listing", failure("SQLITE_BUSY", "locked"))))
      const defect = yield* Effect.flip(Effect.die(failure("SQLITE_IOERR", "disk")).pipe(SqlStoreError.mapError(file, "Committing")))
      expect(defect.message).toMatch(/^Committing: SQLite reported an error \(SQLITE_IOERR: /)
      const wrapped = yield* Effect.flip(Effect.die(new SqlError({ message: "COMMIT failed" })).pipe(SqlStoreError.mapError(server, "Committing")))
      expect(wrapped.reason).toBe("Unknown")
      const own = new StoreError.StoreError({ reason: "Incompatible", message: "newer" })
      expect(yield* Effect.flip(Effect.fail(own).pipe(SqlStoreError.mapError(file, "Opening")))).toBe(own)
      const bug = yield* Effect.exit(Effect.die(new TypeError("a bug")).pipe(SqlStoreError.mapError(file, "Opening")))
      expect(Exit.isFailure(bug) && bug.cause._tag === "Die").toBe(true)
    }))
})
