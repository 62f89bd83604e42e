/**
 * The reference of the HTTP benchmark: what a user would pick instead of
 * Animal Store, a Fastify 5 service of the same three routes, written the
 * way Fastify's documentation suggests:
 *
 * - bearer keys looked up by SHA-256 digest in an in-memory map (from
 *   `FLOOR_API_KEYS`), 401 with `WWW-Authenticate` otherwise;
 * - `@fastify/rate-limit`-style counters in memory: per key (or per client
 *   address without one), a fixed UTC minute and day window, 429 with
 *   `Retry-After` when full, `X-RateLimit-*` on every response; nothing is
 *   shared between processes and nothing survives a restart;
 * - animals in better-sqlite3 (WAL, `synchronous = NORMAL`, the store's
 *   schema), query, body and path validated by Fastify's JSON schemas
 *   (Ajv), `Link: rel="next"` with cursors sealed as the standalone server
 *   seals them, the deprecation headers on `getPet`;
 * - Fastify's logger off (its default).
 *
 *   node --import tsx bench/fastify-server.ts --port 8082 --db fastify.db [--anonymous-per-minute N]
 *   FLOOR_API_KEYS=<key>:enterprise:<perMinute>:<perDay>,...
 */
import Fastify from "fastify"
import { createHash } from "node:crypto"
import { floorSql, referenceServer } from "./rawSqlite.js"
import * as SealedCursors from "./sealedCursors.js"

const { anonymousPerMinute: anonymousLimit, db, host, port } = referenceServer(8082)
const listAll = db.prepare(floorSql.list)
const listByStatus = db.prepare(floorSql.listByStatus)
const findPet = db.prepare(floorSql.find)
const insertPet = db.prepare(floorSql.insert)

interface Limits {
  readonly perMinute: number
  readonly perDay: number
}
const digestOf = (secret: string) => createHash("sha256").update(secret, "utf8").digest("hex")
const keys = new Map<string, Limits>()
for (const entry of (process.env.FLOOR_API_KEYS ?? "").split(",").filter((e) => e !== "")) {
  const [secret = "", , perMinute, perDay] = entry.split(":")
  keys.set(digestOf(secret), { perMinute: Number(perMinute), perDay: Number(perDay) })
}
const anonymous: Limits = { perMinute: anonymousLimit, perDay: Number.MAX_SAFE_INTEGER }

interface Counter {
  minuteStart: number
  minuteCount: number
  dayStart: number
  dayCount: number
}
const counters = new Map<string, Counter>()

/** Counts a request of `subject` at `now`: its headers, and `Retry-After` in seconds when refused. */
const count = (subject: string, limits: Limits, now: number) => {
  const minuteStart = now - (now % 60_000)
  const dayStart = now - (now % 86_400_000)
  let counter = counters.get(subject)
  if (counter === undefined) {
    counter = { minuteStart, minuteCount: 0, dayStart, dayCount: 0 }
    counters.set(subject, counter)
  }
  if (counter.minuteStart !== minuteStart) (counter.minuteStart = minuteStart), (counter.minuteCount = 0)
  if (counter.dayStart !== dayStart) (counter.dayStart = dayStart), (counter.dayCount = 0)
  const minuteFull = counter.minuteCount >= limits.perMinute
  const dayFull = counter.dayCount >= limits.perDay
  if (!minuteFull && !dayFull) counter.minuteCount++, counter.dayCount++
  const minuteLeft = limits.perMinute - counter.minuteCount
  const dayLeft = limits.perDay - counter.dayCount
  const byDay = dayLeft < minuteLeft
  const reset = byDay ? dayStart + 86_400_000 : minuteStart + 60_000
  const headers: Record<string, string> = {
    "x-ratelimit-limit": String(byDay ? limits.perDay : limits.perMinute),
    "x-ratelimit-remaining": String(Math.max(0, byDay ? dayLeft : minuteLeft)),
    "x-ratelimit-reset": String(reset / 1000)
  }
  const retryAfter = minuteFull || dayFull
    ? Math.ceil(((dayFull ? dayStart + 86_400_000 : minuteStart + 60_000) - now) / 1000)
    : undefined
  return { headers, retryAfter }
}

const cursors = SealedCursors.make()

const sunset = Date.UTC(2030, 11, 5)
const error = (status: number, code: string, message: string) => ({ code, message, status })

const app = Fastify({ logger: false, bodyLimit: 65_536 })

app.addHook("onRequest", async (request, reply) => {
  const now = Date.now()
  const header = request.headers.authorization
  const secret = header?.startsWith("Bearer ") ? header.slice(7) : undefined
  const limits = secret === undefined ? undefined : keys.get(digestOf(secret))
  const { headers, retryAfter } = count(limits === undefined ? `ip:${request.ip}` : `key:${secret}`, limits ?? anonymous, now)
  reply.headers(headers)
  if (retryAfter !== undefined) {
    return reply.code(429).header("retry-after", String(retryAfter)).send(error(429, "rate_limited", "Too many requests"))
  }
  if (limits === undefined) {
    return reply.code(401).header("www-authenticate", "Bearer realm=\"animal-store\"").send(
      error(401, "unauthorized", "A valid API key is required")
    )
  }
})

app.setErrorHandler((failure: { readonly statusCode?: number; readonly message: string }, _request, reply) => {
  const status = failure.statusCode ?? 500
  const code = status === 400 ? "invalid_request" : status === 413 ? "payload_too_large" : status === 415
    ? "unsupported_media_type"
    : "internal_error"
  reply.code(status).send(error(status, code, status === 500 ? "Internal error" : failure.message))
})

const status = { type: "string", enum: ["available", "pending", "sold"] } as const

app.get<{ Querystring: { limit: number; status?: string; cursor?: string } }>("/v1/pets", {
  schema: {
    querystring: {
      type: "object",
      properties: { limit: { type: "integer", minimum: 1, maximum: 100, default: 20 }, status, cursor: { type: "string" } }
    }
  }
}, async (request, reply) => {
  const { cursor, limit, status } = request.query
  const afterId = cursor === undefined ? 0 : cursors.open(cursor, status)
  if (afterId === undefined) return reply.code(400).send(error(400, "invalid_request", "cursor is not a valid cursor"))
  const rows = (status === undefined ? listAll.all(afterId, limit + 1) : listByStatus.all(status, afterId, limit + 1)) as Array<
    { readonly id: number }
  >
  if (rows.length > limit) {
    rows.length = limit
    const next = new URLSearchParams({ limit: String(limit), ...(status === undefined ? {} : { status }) })
    next.set("cursor", cursors.seal(rows[limit - 1]!.id, status))
    reply.header("link", `</v1/pets?${next.toString()}>; rel="next"`)
  }
  return rows
})

app.post<{ Body: { name: string; categoryId: number; status?: string } }>("/v1/pets", {
  schema: {
    body: {
      type: "object",
      required: ["name", "categoryId"],
      additionalProperties: false,
      properties: {
        name: { type: "string", minLength: 1, maxLength: 255 },
        categoryId: { type: "integer", minimum: 1, maximum: Number.MAX_SAFE_INTEGER },
        status
      }
    }
  }
}, async (request, reply) => {
  const name = request.body.name.trim()
  if (name === "") return reply.code(400).send(error(400, "invalid_request", "name must not be empty"))
  const row = insertPet.get(name, request.body.categoryId, request.body.status ?? "available") as { readonly id: number }
  return reply.code(201).header("location", `/v1/pets/${row.id}`).send(row)
})

app.get<{ Params: { id: number } }>("/v1/pets/:id", {
  schema: { params: { type: "object", properties: { id: { type: "integer", minimum: 1 } } } }
}, async (request, reply) => {
  reply.headers({
    deprecation: "@1735689600",
    sunset: "Thu, 05 Dec 2030 00:00:00 GMT",
    link: "</v1/pets>; rel=\"successor-version\""
  })
  if (Date.now() >= sunset) return reply.code(410).send(error(410, "gone", "This operation was removed on its sunset date"))
  const row = findPet.get(request.params.id)
  if (row === undefined) return reply.code(404).send(error(404, "not_found", `No pet with id ${request.params.id}`))
  return row
})

await app.listen({ port, host })
console.log(`fastify reference listening on http://${host}:${port}`)
const stop = () => void app.close().then(() => process.exit(0))
process.on("SIGTERM", stop)
process.on("SIGINT", stop)
