/**
 * The PostgreSQL reference of `bench:postgres`: what a careful hand-written
 * service of the same routes and rules costs on node:http and `pg` alone, on a
 * database of the store's schema. Two round trips per request: one call of a
 * PL/pgSQL function that looks the key up by digest, locks the key's row
 * (created when new) and applies both windows and the ban, then the
 * operation, each a named prepared statement on a pool of 10 connections.
 * Without a valid key, the client address is counted in memory, as the server
 * does. Headers and error bodies as `floor-server.ts` writes them.
 *
 *   node pg-server.mjs --port 8083 --url postgres://... [--anonymous-per-minute N] [--pool N]
 *   PG_REFERENCE_API_KEYS=<key>:enterprise:<perMinute>:<perDay>,...
 */
import { createHash, randomBytes } from "node:crypto"
import * as Http from "node:http"
import { parseArgs } from "node:util"
import Pg from "pg"
import { positiveId } from "../sealedCursors.js"
import * as SealedCursors from "../sealedCursors.js"

const { values: args } = parseArgs({
  options: {
    port: { type: "string", default: "8083" },
    host: { type: "string", default: "127.0.0.1" },
    url: { type: "string" },
    pool: { type: "string", default: "10" },
    "anonymous-per-minute": { type: "string", default: "60" }
  }
})
if (args.url === undefined) throw new Error("--url is required")
const anonymousPerMinute = Number(args["anonymous-per-minute"])
const banAfter = 10
const banSeconds = 900

const pool = new Pg.Pool({ connectionString: args.url, max: Number(args.pool) })
pool.on("error", () => {})

/**
 * The whole rate-limit step of a key in the database: the key of `digest`
 * (production, not revoked); its row locked by the upsert; the minute and day
 * windows and the ban; the new state written. Without such a key, one row
 * whose `outcome` is NULL, and nothing written.
 */
const countFunction = `
CREATE OR REPLACE FUNCTION reference_count_key(p_digest text, p_now bigint, p_ban_after bigint, p_ban_millis bigint)
RETURNS TABLE (key_id text, outcome text, per_minute bigint, per_day bigint, minute_start bigint,
  minute_count bigint, day_start bigint, day_count bigint, retry_after bigint)
LANGUAGE plpgsql AS $$
DECLARE
  v_subject text; v_ms bigint; v_mc bigint; v_ds bigint; v_dc bigint; v_rc bigint; v_bu bigint;
  v_minute bigint := (p_now / 60000) * 60000; v_day bigint := (p_now / 86400000) * 86400000;
  v_full_reset bigint := 0; v_consumed bigint := 0;
BEGIN
  key_id := NULL;
  IF p_digest IS NOT NULL THEN
    SELECT k.id, k.per_minute, k.per_day INTO key_id, per_minute, per_day FROM api_keys k
      WHERE k.digest = p_digest AND k.revoked_at IS NULL AND k.environment = 'production';
  END IF;
  IF key_id IS NULL THEN
    RETURN NEXT;
    RETURN;
  END IF;
  v_subject := 'key:' || key_id;
  INSERT INTO rate_limits AS r (subject) VALUES (v_subject) ON CONFLICT (subject) DO UPDATE SET subject = r.subject
    RETURNING r.minute_start, r.minute_count, r.day_start, r.day_count, r.refused_count, r.banned_until
    INTO v_ms, v_mc, v_ds, v_dc, v_rc, v_bu;
  IF v_ms IS NULL OR v_ms < v_minute THEN v_ms := v_minute; v_mc := 0; END IF;
  IF v_ds IS NULL OR v_ds < v_day THEN v_ds := v_day; v_dc := 0; END IF;
  v_rc := coalesce(v_rc, 0); v_bu := coalesce(v_bu, 0);
  IF v_mc >= per_minute THEN v_full_reset := v_ms + 60000; END IF;
  IF per_day IS NOT NULL AND v_dc >= per_day THEN v_full_reset := greatest(v_full_reset, v_ds + 86400000); END IF;
  IF p_now < v_bu THEN
    outcome := 'api_key_banned'; retry_after := ceil((greatest(v_bu, v_full_reset) - p_now) / 1000.0);
  ELSIF v_full_reset > 0 THEN
    v_rc := v_rc + 1;
    IF per_day IS NOT NULL AND v_rc > p_ban_after THEN
      outcome := 'api_key_banned'; v_rc := 0; v_bu := p_now + p_ban_millis;
      retry_after := ceil((greatest(v_bu, v_full_reset) - p_now) / 1000.0);
    ELSE
      outcome := 'rate_limited'; retry_after := ceil((v_full_reset - p_now) / 1000.0);
    END IF;
  ELSE
    outcome := 'accepted'; v_consumed := 1; v_rc := 0; retry_after := 0;
  END IF;
  UPDATE rate_limits SET minute_start = v_ms, minute_count = v_mc + v_consumed, day_start = v_ds,
    day_count = v_dc + v_consumed, refused_count = v_rc, banned_until = v_bu WHERE subject = v_subject;
  minute_start := v_ms; minute_count := v_mc + v_consumed; day_start := v_ds; day_count := v_dc + v_consumed;
  RETURN NEXT;
END $$`

const digestOf = (secret: string) => createHash("sha256").update(secret, "utf8").digest("hex")
const keyPattern = /^ask_live_[A-Za-z0-9_-]{16,}$/

await pool.query(countFunction)
for (const entry of (process.env.PG_REFERENCE_API_KEYS ?? "").split(",").filter((e) => e !== "")) {
  const [secret = "", plan, perMinute, perDay] = entry.split(":")
  if (!keyPattern.test(secret) || plan !== "enterprise") {
    throw new Error("PG_REFERENCE_API_KEYS: <key>:enterprise:<perMinute>:<perDay>")
  }
  await pool.query(
    `INSERT INTO api_keys (id, prefix, digest, plan, per_minute, per_day, environment, created_at, revoked_at)
     VALUES ($1, $2, $3, 'enterprise', $4, $5, 'production', $6, NULL) ON CONFLICT (digest) DO NOTHING`,
    ["key_" + randomBytes(12).toString("base64url"), secret.slice(0, 13), digestOf(secret), perMinute, perDay, Date.now()]
  )
}

type CountRow = readonly [
  keyId: string | null,
  outcome: "accepted" | "rate_limited" | "api_key_banned" | null,
  perMinute: string,
  perDay: string | null,
  minuteStart: string,
  minuteCount: string,
  dayStart: string,
  dayCount: string,
  retryAfter: string
]

interface Window {
  readonly name: "minute" | "day"
  readonly seconds: number
  readonly limit: number
  readonly remaining: number
  readonly reset: number
}

/** A client address's minute window, in memory as the server's: the 100,000 most recently seen. */
const addresses = new Map<string, { readonly start: number; readonly count: number }>()
const countAddress = (address: string, now: number) => {
  const start = Math.floor(now / 60_000) * 60_000
  const held = addresses.get(address)
  const current = held !== undefined && held.start >= start ? held : { start, count: 0 }
  const accepted = current.count < anonymousPerMinute
  const counted = { start: current.start, count: current.count + (accepted ? 1 : 0) }
  addresses.delete(address)
  addresses.set(address, counted)
  if (addresses.size > 100_000) addresses.delete(addresses.keys().next().value!)
  const window: Window = {
    name: "minute",
    seconds: 60,
    limit: anonymousPerMinute,
    remaining: Math.max(0, anonymousPerMinute - counted.count),
    reset: (counted.start + 60_000) / 1000
  }
  return {
    keyId: null,
    outcome: accepted ? "accepted" as const : "rate_limited" as const,
    windows: [window],
    retryAfter: accepted ? 0 : Math.ceil((counted.start + 60_000 - now) / 1000)
  }
}

const count = async (digest: string | null, address: string, now: number) => {
  if (digest === null) return countAddress(address, now)
  const result = await pool.query<CountRow>({
    name: "count",
    text: "SELECT * FROM reference_count_key($1, $2, $3, $4)",
    values: [digest, now, banAfter, banSeconds * 1000],
    rowMode: "array"
  })
  const [keyId, outcome, perMinute, perDay, minuteStart, minuteCount, dayStart, dayCount, retryAfter] = result.rows[0]!
  if (outcome === null) return countAddress(address, now)
  const banned = outcome === "api_key_banned"
  const banReset = Math.ceil((now + Number(retryAfter) * 1000) / 1000)
  const window = (name: "minute" | "day", seconds: number, limit: number, start: number, used: number): Window => ({
    name,
    seconds,
    limit,
    remaining: banned ? 0 : Math.max(0, limit - used),
    reset: banned ? banReset : start / 1000 + seconds
  })
  const windows = [window("minute", 60, Number(perMinute), Number(minuteStart), Number(minuteCount))]
  if (perDay !== null) windows.push(window("day", 86_400, Number(perDay), Number(dayStart), Number(dayCount)))
  return { keyId, outcome, windows, retryAfter: Number(retryAfter) }
}

const rateLimitHeaders = (windows: ReadonlyArray<Window>, now: number): Record<string, string> => {
  let reported = windows[0]!
  for (const window of windows) {
    if (
      window.remaining < reported.remaining || (window.remaining === reported.remaining && window.reset >= reported.reset)
    ) reported = window
  }
  return {
    "x-ratelimit-limit": String(reported.limit),
    "x-ratelimit-remaining": String(reported.remaining),
    "x-ratelimit-reset": String(reported.reset),
    "ratelimit-policy": windows.map((w) => `"${w.name}";q=${w.limit};w=${w.seconds}`).join(", "),
    "ratelimit": windows.map((w) => `"${w.name}";r=${w.remaining};t=${Math.max(0, Math.ceil(w.reset - now / 1000))}`)
      .join(", ")
  }
}

const jsonType = "application/json; charset=utf-8"

const send = (res: Http.ServerResponse, status: number, headers: Record<string, string>, body: unknown) => {
  const text = JSON.stringify(body)
  res.writeHead(status, { ...headers, "content-type": jsonType, "content-length": Buffer.byteLength(text) })
  res.end(text)
}

const sendError = (res: Http.ServerResponse, status: number, code: string, message: string, headers: Record<string, string>) =>
  send(res, status, headers, { code, message, status })

type PetRow = readonly [id: string, name: string, categoryId: string, status: string]
const petOf = (row: PetRow) => ({ id: Number(row[0]), name: row[1], categoryId: Number(row[2]), status: row[3] })
const columns = "id, name, category_id, status"
const pets = async (name: string, text: string, values: ReadonlyArray<unknown>) =>
  (await pool.query<PetRow>({ name, text, values: values as Array<unknown>, rowMode: "array" })).rows.map(petOf)

const statusValues = new Set(["available", "pending", "sold"])
const cursors = SealedCursors.make()

const sunset = Date.UTC(2030, 11, 5)
const deprecationHeaders = {
  deprecation: "@1735689600",
  sunset: "Thu, 05 Dec 2030 00:00:00 GMT",
  link: "</v1/pets>; rel=\"successor-version\""
}

const listPets = async (res: Http.ServerResponse, query: URLSearchParams, headers: Record<string, string>) => {
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
  const rows = status === null
    ? await pets("list", `SELECT ${columns} FROM pets WHERE id > $1 ORDER BY id LIMIT $2`, [afterId, limit + 1])
    : await pets(
      "listByStatus",
      `SELECT ${columns} FROM pets WHERE status = $1 AND id > $2 ORDER BY id LIMIT $3`,
      [status, afterId, limit + 1]
    )
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

const readBody = (req: Http.IncomingMessage) =>
  new Promise<Buffer | undefined>((resolve, reject) => {
    const chunks: Array<Buffer> = []
    let size = 0
    let tooLarge = false
    req.on("data", (chunk: Buffer) => {
      size += chunk.length
      if (size > maxBody) tooLarge = true
      else chunks.push(chunk)
    })
    req.on("end", () => resolve(tooLarge ? undefined : Buffer.concat(chunks)))
    req.on("error", reject)
  })

const createPet = async (req: Http.IncomingMessage, res: Http.ServerResponse, headers: Record<string, string>) => {
  const type = req.headers["content-type"]
  if (type === undefined || type.split(";")[0]!.trim().toLowerCase() !== "application/json") {
    req.resume()
    return sendError(res, 415, "unsupported_media_type", "The body must be application/json", headers)
  }
  const bytes = await readBody(req)
  if (bytes === undefined) return sendError(res, 413, "payload_too_large", "The body is larger than 65536 bytes", headers)
  let body: unknown
  try {
    body = JSON.parse(bytes.toString("utf8"))
  } catch {
    return sendError(res, 400, "invalid_request", "The body is not valid JSON", headers)
  }
  const pet = validateNewPet(body)
  if (typeof pet === "string") return sendError(res, 400, "invalid_request", `Invalid pet: ${pet}`, headers)
  const [row] = await pets(
    "insert",
    `INSERT INTO pets (name, category_id, status) VALUES ($1, $2, $3) RETURNING ${columns}`,
    [pet.name, pet.categoryId, pet.status]
  )
  send(res, 201, { ...headers, location: `/v1/pets/${row!.id}` }, row)
}

const getPet = async (res: Http.ServerResponse, idText: string, headers: Record<string, string>, now: number) => {
  headers = { ...headers, ...deprecationHeaders }
  if (now >= sunset) return sendError(res, 410, "gone", "This operation was removed on its sunset date", headers)
  const id = positiveId(idText)
  if (id === undefined) return sendError(res, 400, "invalid_request", "Invalid pet id: must be a positive integer", headers)
  const [row] = await pets("find", `SELECT ${columns} FROM pets WHERE id = $1`, [id])
  if (row === undefined) return sendError(res, 404, "not_found", `No pet with id ${id}`, headers)
  send(res, 200, headers, row)
}

const petPath = /^\/v1\/pets\/([^/]+)$/

const handle = async (req: Http.IncomingMessage, res: Http.ServerResponse) => {
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
  const digest = token !== undefined && keyPattern.test(token) ? digestOf(token) : null
  const decision = await count(digest, req.socket.remoteAddress ?? "", now)
  const headers = rateLimitHeaders(decision.windows, now)
  if (decision.outcome !== "accepted") {
    req.resume()
    return sendError(res, 429, decision.outcome, "Too many requests", { ...headers, "retry-after": String(decision.retryAfter) })
  }
  if (operation === "404") return sendError(res, 404, "not_found", "No such route", headers)
  if (operation === "405") {
    req.resume()
    return sendError(res, 405, "method_not_allowed", "Method not allowed", {
      ...headers,
      allow: path === "/v1/pets" ? "GET, POST" : "GET"
    })
  }
  if (decision.keyId === null) {
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
    handle(req, res).catch(() => {
      if (!res.headersSent) sendError(res, 503, "service_unavailable", "The store is unavailable", { "retry-after": "1" })
      else res.destroy()
    })
  }
)
server.listen(Number(args.port), args.host, () => {
  console.log(`pg reference listening on http://${args.host}:${args.port}/v1`)
})
const stop = () => {
  server.close(() => {
    void pool.end().then(() => process.exit(0))
  })
  server.closeIdleConnections()
}
process.on("SIGTERM", stop)
process.on("SIGINT", stop)
