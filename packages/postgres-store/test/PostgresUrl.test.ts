import { describe, expect, it } from "@effect/vitest"
import { Either, Redacted } from "effect"
import { PostgresUrl } from "../src/index.js"

describe("PostgresUrl.storeUrl", () => {
  const { storeUrl } = PostgresUrl

  it("takes postgres:// and postgresql:// URLs, keeping the password redacted", () => {
    expect(storeUrl.accepts("postgresql://h/db")).toBe(true)
    expect(storeUrl.accepts("sqlite:x.db")).toBe(false)
    const parsed = storeUrl.parse("postgres://animal:hunter2@db.example:5433/animals?sslmode=require")
    if (Either.isLeft(parsed)) throw new Error(parsed.left)
    expect(parsed.right._tag).toBe("Postgres")
    expect(Redacted.value(parsed.right.url)).toBe("postgres://animal:hunter2@db.example:5433/animals?sslmode=require")
    expect(String(parsed.right.url)).not.toContain("hunter2")
    expect(storeUrl.format(parsed.right)).toBe("postgres://animal:***@db.example:5433/animals?sslmode=require")
  })

  it("refuses a URL without a host, without repeating its password", () => {
    expect(storeUrl.parse("postgres://user:hunter2@")).toEqual(
      Either.left("expected postgres://user:password@host:port/database, got <an invalid PostgreSQL URL>")
    )
    expect(storeUrl.parse("postgres:///db?password=hunter2")).toEqual(
      Either.left("expected postgres://user:password@host:port/database, got postgres:///db?password=***")
    )
  })
})
