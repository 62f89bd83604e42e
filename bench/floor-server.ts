/**
 * The floor of the HTTP benchmark: what a careful hand-written service of the
 * same routes costs, on node:http and better-sqlite3 alone, on a database of
 * the store's schema. Same rules in spirit as the standalone server, kept
 * minimal:
 *
 * - `Authorization: Bearer <key>` looked up by SHA-256 digest in `api_keys`;
 *   without a valid key, the client address is limited instead, and an
 *   operation answers 401 with `WWW-Authenticate`.
 * - Per key, a minute and a day window counted in `rate_limits` in one
 *   `BEGIN IMMEDIATE` transaction per request (refusals numbered, a ban after
 *   10); per client address, a minute window in memory (a `Map` of the most
 *   recently seen); `X-RateLimit-*`, `RateLimit-Policy`, `RateLimit` on every
 *   response, 429 with `Retry-After` when full.
 * - `GET /v1/pets?limit&status&cursor` (400 on a bad value, `Link` to the
 *   next page), `POST /v1/pets` (415, 413 over 64 KiB, 400 on bad JSON or a
 *   bad `NewPet`, 201 with `Location`), `GET /v1/pets/:id` (400, 404, the
 *   deprecation headers, 410 after the sunset), 404/405 elsewhere, every error
 *   an `Error` body.
 *
 *   node --import tsx bench/floor-server.ts --port 8081 --db floor.db [--anonymous-per-minute N]
 *   FLOOR_API_KEYS=<key>:enterprise:<perMinute>:<perDay>,...
 */
import { createHash, randomBytes } from "node:crypto"
import * as Http from "node:http"
import { floorSql, referenceServer } from "./rawSqlite.js"
import { positiveId } from "./sealedCursors.js"
import * as SealedCursors from "./sealedCursors.js"

const { anonymousPerMinute: anonymousLimit, db, host, port } = referenceServer(8081)

const digestOf = (secret: string) => createHash("sha256").update(secret, "utf8").digest("hex")
const keyPattern = /^ask_live_[A-Za-z0-9_-]{16,}$/

const insertKey = db.prepare(
  `INSERT INTO api_keys (id, prefix, digest, plan, per_minute, per_day, environment, created_at, revoked_at)
   VALUES (?, ?, ?, 'enterprise', ?, ?, 'production', ?, NULL) ON CONFLICT (digest) DO NOTHING`
)
for (const entry of (process.env.FLOOR_API_KEYS ?? "").split(",").filter((e) => e !== "")) {
  const [secret = "", plan, perMinute, perDay] = entry.split(":")
  if (!keyPattern.test(secret) || plan !== "enterprise") throw new Error("FLOOR_API_KEYS: <key>:enterprise:<perMinute>:<perDay>")
  insertKey.run(
    "key_" + randomBytes(12).toString("base64url"),
    secret.slice(0, 13),
    digestOf(secret),
    Number(perMinute),
    Number(perDay),
    Date.now()
  )
}

interface KeyRow {
  readonly id: string
  readonly perMinute: number
  readonly perDay: number
  readonly environment: string
  readonly revokedAt: number | null
}
const findKey = db.prepare(
  "SELECT id, per_minute AS perMinute, per_day AS perDay, environment, revoked_at AS revokedAt FROM api_keys WHERE digest = ?"
)

interface LimitRow {
  readonly minuteStart: number
  readonly minuteCount: number
  readonly dayStart: number
  readonly dayCount: number
  readonly refusedCount: number
  readonly bannedUntil: number
}
const readLimit = db.prepare(
  `SELECT minute_start AS minuteStart, minute_count AS minuteCount, day_start AS dayStart, day_count AS dayCount,
     refused_count AS refusedCount, banned_until AS bannedUntil FROM rate_limits WHERE subject = ?`
)
const writeLimit = db.prepare(
  `INSERT INTO rate_limits (subject, minute_start, minute_count, day_start, day_count, refused_count, banned_until)
   VALUES (?, ?, ?, ?, ?, ?, ?)
   ON CONFLICT (subject) DO UPDATE SET minute_start = excluded.minute_start, minute_count = excluded.minute_count,
     day_start = excluded.day_start, day_count = excluded.day_count, refused_count = excluded.refused_count,
     banned_until = excluded.banned_until`
)

const anonymousPerMinute = anonymousLimit
const banAfter = 10
const banMillis = 900_000

interface Window {
  readonly name: "minute" | "day"
  readonly seconds: number
  readonly limit: number
  readonly remaining: number
  readonly reset: number
}
interface Decision {
  readonly outcome: "accepted" | "rate_limited" | "api_key_banned"
  readonly windows: ReadonlyArray<Window>
  readonly retryAfter: number
}

/** One subject's decision and next counters, from its counters (`undefined`: none yet). */
const decide = (
  state: LimitRow | undefined,
  perMinute: number,
  perDay: number | undefined,
  now: number
): readonly [Decision, LimitRow] => {
  const minuteStart = Math.floor(now / 60_000) * 60_000
  const dayStart = Math.floor(now / 86_400_000) * 86_400_000
  const minute = state !== undefined && state.minuteStart >= minuteStart
    ? { start: state.minuteStart, count: state.minuteCount }
    : { start: minuteStart, count: 0 }
  const day = state !== undefined && state.dayStart >= dayStart
    ? { start: state.dayStart, count: state.dayCount }
    : { start: dayStart, count: 0 }
  const refused = state?.refusedCount ?? 0
  let bannedUntil = state?.bannedUntil ?? 0
  const windowsAfter = (consumed: number): Array<Window> => {
    const windows: Array<Window> = [{
      name: "minute",
      seconds: 60,
      limit: perMinute,
      remaining: Math.max(0, perMinute - minute.count - consumed),
      reset: (minute.start + 60_000) / 1000
    }]
    if (perDay !== undefined) {
      windows.push({
        name: "day",
        seconds: 86_400,
        limit: perDay,
        remaining: Math.max(0, perDay - day.count - consumed),
        reset: (day.start + 86_400_000) / 1000
      })
    }
    return windows
  }
  const next = (consumed: number, refusedCount: number): LimitRow => ({
    minuteStart: minute.start,
    minuteCount: minute.count + consumed,
    dayStart: day.start,
    dayCount: perDay === undefined ? 0 : day.count + consumed,
    refusedCount,
    bannedUntil
  })
  if (now < bannedUntil) {
    return [{ outcome: "api_key_banned", windows: windowsAfter(0), retryAfter: Math.ceil((bannedUntil - now) / 1000) }, next(0, refused)]
  }
  const minuteFull = minute.count >= perMinute
  const dayFull = perDay !== undefined && day.count >= perDay
  if (minuteFull || dayFull) {
    const number = refused + 1
    if (perDay !== undefined && number > banAfter) {
      bannedUntil = now + banMillis
      return [{ outcome: "api_key_banned", windows: windowsAfter(0), retryAfter: banMillis / 1000 }, next(0, number)]
    }
    const reset = Math.max(minuteFull ? minute.start + 60_000 : 0, dayFull ? day.start + 86_400_000 : 0)
    return [{ outcome: "rate_limited", windows: windowsAfter(0), retryAfter: Math.ceil((reset - now) / 1000) }, next(0, number)]
  }
  return [{ outcome: "accepted", windows: windowsAfter(1), retryAfter: 0 }, next(1, 0)]
}

/** Reads, decides and writes a key's counters, under the write lock. */
const countKey = db.transaction((subject: string, perMinute: number, perDay: number, now: number): Decision => {
  const [decision, next] = decide(readLimit.get(subject) as LimitRow | undefined, perMinute, perDay, now)
  writeLimit.run(subject, next.minuteStart, next.minuteCount, next.dayStart, next.dayCount, next.refusedCount, next.bannedUntil)
  return decision
})

/** A client address's counters live in memory, as the server's do: the 100,000 most recently seen. */
const addresses = new Map<string, LimitRow>()
const countAddress = (address: string, now: number): Decision => {
  const [decision, next] = decide(addresses.get(address), anonymousPerMinute, undefined, now)
  addresses.delete(address)
  addresses.set(address, next)
  if (addresses.size > 100_000) addresses.delete(addresses.keys().next().value!)
  return decision
}

const rateLimitHeaders = (decision: Decision, now: number): Record<string, string> => {
  let reported = decision.windows[0]!
  for (const window of decision.windows) {
    if (
      window.remaining < reported.remaining || (window.remaining === reported.remaining && window.reset >= reported.reset)
    ) reported = window
  }
  return {
    "x-ratelimit-limit": String(reported.limit),
    "x-ratelimit-remaining": String(reported.remaining),
    "x-ratelimit-reset": String(reported.reset),
    "ratelimit-policy": decision.windows.map((w) => `"${w.name}";q=${w.limit};w=${w.seconds}`).join(", "),
    "ratelimit": decision.windows
      .map((w) => `"${w.name}";r=${w.remaining};t=${Math.max(0, Math.ceil(w.reset - now / 1000))}`)
      .join(", ")
  }
}

const jsonType = "application/json; charset=utf-8"

const send = (res: Http.ServerResponse, status: number, headers: Record<string, string>, body: unknown) => {
  const text = JSON.stringify(body)
  res.writeHead(status, { ...headers, "content-type": jsonType, "content-length": Buffer.byteLength(text) })
  res.end(text)
}

const sendError = (
  res: Http.ServerResponse,
  status: number,
  code: string,
  message: string,
  headers: Record<string, string>
) => send(res, status, headers, { code, message, status })

const listAll = db.prepare(floorSql.list)
const listByStatus = db.prepare(floorSql.listByStatus)
const findPet = db.prepare(floorSql.find)
const insertPet = db.prepare(floorSql.insert)

const statusValues = new Set(["available", "pending", "sold"])
const cursors = SealedCursors.make()

const sunset = Date.UTC(2030, 11, 5)
const deprecationHeaders = {
  deprecation: "@1735689600",
  sunset: "Thu, 05 Dec 2030 00:00:00 GMT",
  link: "</v1/pets>; rel=\"successor-version\""
}

const listPets = (res: Http.ServerResponse, query: URLSearchParams, headers: Record<string, string>) => {
  const limitText = query.get("limit")
  const status = query.get("status")
  const cursor = query.get("cursor")
  const limit = limitText === null ? 20 : positiveId(limitText)
  if (limit === undefined || limit > 100) {
    return sendError(res, 400, "invalid_request", "Invalid query: limit must be an integer from 1 to 100", headers)
  }
  if (status !== null && !statusValues.has(status)) {
    return sendError(res, 400, "invalid_request", "Invalid query: status must be one of available, pending, sold", headers)
  }
  const afterId = cursor === null ? 0 : cursors.open(cursor, status ?? undefined)
  if (afterId === undefined) return sendError(res, 400, "invalid_request", "Invalid query: cursor is not a valid cursor", headers)
  const rows = (status === null ? listAll.all(afterId, limit + 1) : listByStatus.all(status, afterId, limit + 1)) as Array<
    { readonly id: number }
  >
  if (rows.length > limit) {
    rows.length = limit
    const next = new URLSearchParams()
    if (limitText !== null) next.set("limit", limitText)
    if (status !== null) next.set("status", status)
    next.set("cursor", cursors.seal(rows[limit - 1]!.id, status ?? undefined))
    headers = { ...headers, link: `</v1/pets?${next.toString()}>; rel="next"` }
  }
  send(res, 200, headers, rows)
}

const maxBody = 65_536
const newPetKeys = new Set(["name", "categoryId", "status"])

const validateNewPet = (body: unknown): { name: string; categoryId: number; status: string } | string => {
  if (typeof body !== "object" || body === null || Array.isArray(body)) return "the body must be a JSON object"
  const record = body as Record<string, unknown>
  for (const key of Object.keys(record)) if (!newPetKeys.has(key)) return `${key} is not allowed`
  const { categoryId, name, status = "available" } = record
  if (typeof name !== "string") return "name is required and must be a string"
  const trimmed = name.trim()
  if (trimmed.length === 0) return "name must not be empty"
  if ([...trimmed].length > 255) return "name must be at most 255 characters"
  if (typeof categoryId !== "number" || !Number.isSafeInteger(categoryId) || categoryId < 1) {
    return "categoryId must be an integer from 1 to 9007199254740991"
  }
  if (typeof status !== "string" || !statusValues.has(status)) return "status must be one of available, pending, sold"
  return { name: trimmed, categoryId, status }
}

const createPet = (req: Http.IncomingMessage, res: Http.ServerResponse, headers: Record<string, string>) => {
  const type = req.headers["content-type"]
  if (type === undefined || type.split(";")[0]!.trim().toLowerCase() !== "application/json") {
    req.resume()
    return sendError(res, 415, "unsupported_media_type", "The body must be application/json", headers)
  }
  const chunks: Array<Buffer> = []
  let size = 0
  let tooLarge = false
  req.on("data", (chunk: Buffer) => {
    size += chunk.length
    if (size > maxBody) tooLarge = true
    else chunks.push(chunk)
  })
  req.on("end", () => {
    if (tooLarge) return sendError(res, 413, "payload_too_large", "The body is larger than 65536 bytes", headers)
    let body: unknown
    try {
      body = JSON.parse(Buffer.concat(chunks).toString("utf8"))
    } catch {
      return sendError(res, 400, "invalid_request", "The body is not valid JSON", headers)
    }
    const pet = validateNewPet(body)
    if (typeof pet === "string") return sendError(res, 400, "invalid_request", `Invalid pet: ${pet}`, headers)
    const row = insertPet.get(pet.name, pet.categoryId, pet.status) as { readonly id: number }
    send(res, 201, { ...headers, location: `/v1/pets/${row.id}` }, row)
  })
}

const getPet = (res: Http.ServerResponse, idText: string, headers: Record<string, string>, now: number) => {
  headers = { ...headers, ...deprecationHeaders }
  if (now >= sunset) return sendError(res, 410, "gone", "This operation was removed on its sunset date", headers)
  const id = positiveId(idText)
  if (id === undefined) return sendError(res, 400, "invalid_request", "Invalid pet id: must be a positive integer", headers)
  const row = findPet.get(id)
  if (row === undefined) return sendError(res, 404, "not_found", `No pet with id ${id}`, headers)
  send(res, 200, headers, row)
}

const petPath = /^\/v1\/pets\/([^/]+)$/

const handle = (req: Http.IncomingMessage, res: Http.ServerResponse) => {
  const now = Date.now()
  const url = req.url ?? "/"
  const mark = url.indexOf("?")
  const path = mark === -1 ? url : url.slice(0, mark)
  const method = req.method ?? "GET"
  const idMatch = path === "/v1/pets" ? null : petPath.exec(path)
  const operation = path === "/v1/pets"
    ? method === "GET" ? "list" : method === "POST" ? "create" : "405"
    : idMatch !== null
    ? method === "GET" ? "get" : "405"
    : "404"

  const authorization = req.headers.authorization
  const token = authorization?.startsWith("Bearer ") ? authorization.slice(7).trim() : undefined
  const key = token !== undefined && keyPattern.test(token) ? findKey.get(digestOf(token)) as KeyRow | undefined : undefined
  const valid = key !== undefined && key.revokedAt === null && key.environment === "production" ? key : undefined
  const decision = valid === undefined
    ? countAddress(req.socket.remoteAddress ?? "", now)
    : countKey.immediate(`key:${valid.id}`, valid.perMinute, valid.perDay, now)
  const headers = rateLimitHeaders(decision, now)
  if (decision.outcome !== "accepted") {
    req.resume()
    return sendError(res, 429, decision.outcome, "Too many requests", {
      ...headers,
      "retry-after": String(decision.retryAfter)
    })
  }
  if (operation === "404") return sendError(res, 404, "not_found", "No such route", headers)
  if (operation === "405") {
    req.resume()
    return sendError(res, 405, "method_not_allowed", "Method not allowed", {
      ...headers,
      allow: path === "/v1/pets" ? "GET, POST" : "GET"
    })
  }
  if (valid === undefined) {
    req.resume()
    return sendError(res, 401, "unauthorized", "A bearer API key is required", {
      ...headers,
      "www-authenticate": token === undefined
        ? "Bearer realm=\"animal-store\""
        : "Bearer realm=\"animal-store\", error=\"invalid_token\""
    })
  }
  switch (operation) {
    case "list":
      return listPets(res, new URLSearchParams(mark === -1 ? "" : url.slice(mark + 1)), headers)
    case "create":
      return createPet(req, res, headers)
    case "get":
      return getPet(res, idMatch![1]!, headers, now)
  }
}

const server = Http.createServer(
  { maxHeaderSize: 16_384, headersTimeout: 10_000, requestTimeout: 30_000 },
  (req, res) => {
    try {
      handle(req, res)
    } catch {
      if (!res.headersSent) sendError(res, 500, "internal_error", "Internal error", {})
      else res.destroy()
    }
  }
)
server.listen(port, host, () => {
  console.log(`floor listening on http://${host}:${port}/v1`)
})
const stop = () => {
  server.close(() => {
    db.close()
    process.exit(0)
  })
  server.closeIdleConnections()
}
process.on("SIGTERM", stop)
process.on("SIGINT", stop)
