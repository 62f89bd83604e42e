// bench/fastify-server.ts
import Fastify from "fastify";
import { createHash } from "node:crypto";

// bench/rawSqlite.ts
import Database from "better-sqlite3";
import { parseArgs } from "node:util";
var columns = "id, name, category_id AS categoryId, status";
var floorSql = {
  list: `SELECT ${columns} FROM pets WHERE id > ? ORDER BY id LIMIT ?`,
  listByStatus: `SELECT ${columns} FROM pets WHERE status = ? AND id > ? ORDER BY id LIMIT ?`,
  find: `SELECT ${columns} FROM pets WHERE id = ?`,
  insert: `INSERT INTO pets (name, category_id, status) VALUES (?, ?, ?) RETURNING ${columns}`
};
var openRaw = (filename) => new Database(filename);
var referenceServer = (defaultPort) => {
  const { values } = parseArgs({
    options: {
      port: { type: "string", default: String(defaultPort) },
      host: { type: "string", default: "127.0.0.1" },
      db: { type: "string" },
      "anonymous-per-minute": { type: "string", default: "60" }
    }
  });
  if (values.db === void 0) throw new Error("--db is required");
  const db2 = openRaw(values.db);
  db2.pragma("journal_mode = WAL");
  db2.pragma("synchronous = NORMAL");
  db2.pragma("busy_timeout = 5000");
  return {
    port: Number(values.port),
    host: values.host,
    anonymousPerMinute: Number(values["anonymous-per-minute"]),
    db: db2
  };
};

// bench/sealedCursors.ts
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
var pattern = /^c1\.([A-Za-z0-9_-]{1,28})\.([A-Za-z0-9_-]{22})$/;
var decimal = /^[0-9]{1,20}$/;
var positiveId = (text) => {
  if (!decimal.test(text)) return void 0;
  const n = Number(text);
  return Number.isSafeInteger(n) && n >= 1 ? n : void 0;
};
var make = (secret = process.env["ANIMAL_STORE_CURSOR_SECRET"] ?? randomBytes(32).toString("hex")) => {
  const sealOf = (status2, encodedId) => createHmac("sha256", secret).update(`listPets\0${status2 ?? ""}\0${encodedId}`).digest().subarray(0, 16).toString("base64url");
  return {
    /** The id a cursor of the listing of `status` continues after, or `undefined` when it is not one. */
    open: (cursor, status2) => {
      const match = pattern.exec(cursor);
      if (match === null) return void 0;
      const expected = Buffer.from(sealOf(status2, match[1]));
      const given = Buffer.from(match[2]);
      if (expected.length !== given.length || !timingSafeEqual(expected, given)) return void 0;
      return positiveId(Buffer.from(match[1], "base64url").toString("latin1"));
    },
    /** The cursor of the listing of `status` after `id`. */
    seal: (id, status2) => {
      const encodedId = Buffer.from(String(id)).toString("base64url");
      return `c1.${encodedId}.${sealOf(status2, encodedId)}`;
    }
  };
};

// bench/fastify-server.ts
var { anonymousPerMinute: anonymousLimit, db, host, port } = referenceServer(8082);
var listAll = db.prepare(floorSql.list);
var listByStatus = db.prepare(floorSql.listByStatus);
var findPet = db.prepare(floorSql.find);
var insertPet = db.prepare(floorSql.insert);
var digestOf = (secret) => createHash("sha256").update(secret, "utf8").digest("hex");
var keys = /* @__PURE__ */ new Map();
for (const entry of (process.env.FLOOR_API_KEYS ?? "").split(",").filter((e) => e !== "")) {
  const [secret = "", , perMinute, perDay] = entry.split(":");
  keys.set(digestOf(secret), { perMinute: Number(perMinute), perDay: Number(perDay) });
}
var anonymous = { perMinute: anonymousLimit, perDay: Number.MAX_SAFE_INTEGER };
var counters = /* @__PURE__ */ new Map();
var count = (subject, limits, now) => {
  const minuteStart = now - now % 6e4;
  const dayStart = now - now % 864e5;
  let counter = counters.get(subject);
  if (counter === void 0) {
    counter = { minuteStart, minuteCount: 0, dayStart, dayCount: 0 };
    counters.set(subject, counter);
  }
  if (counter.minuteStart !== minuteStart) counter.minuteStart = minuteStart, counter.minuteCount = 0;
  if (counter.dayStart !== dayStart) counter.dayStart = dayStart, counter.dayCount = 0;
  const minuteFull = counter.minuteCount >= limits.perMinute;
  const dayFull = counter.dayCount >= limits.perDay;
  if (!minuteFull && !dayFull) counter.minuteCount++, counter.dayCount++;
  const minuteLeft = limits.perMinute - counter.minuteCount;
  const dayLeft = limits.perDay - counter.dayCount;
  const byDay = dayLeft < minuteLeft;
  const reset = byDay ? dayStart + 864e5 : minuteStart + 6e4;
  const headers = {
    "x-ratelimit-limit": String(byDay ? limits.perDay : limits.perMinute),
    "x-ratelimit-remaining": String(Math.max(0, byDay ? dayLeft : minuteLeft)),
    "x-ratelimit-reset": String(reset / 1e3)
  };
  const retryAfter = minuteFull || dayFull ? Math.ceil(((dayFull ? dayStart + 864e5 : minuteStart + 6e4) - now) / 1e3) : void 0;
  return { headers, retryAfter };
};
var cursors = make();
var sunset = Date.UTC(2030, 11, 5);
var error = (status2, code, message) => ({ code, message, status: status2 });
var app = Fastify({ logger: false, bodyLimit: 65536 });
app.addHook("onRequest", async (request, reply) => {
  const now = Date.now();
  const header = request.headers.authorization;
  const secret = header?.startsWith("Bearer ") ? header.slice(7) : void 0;
  const limits = secret === void 0 ? void 0 : keys.get(digestOf(secret));
  const { headers, retryAfter } = count(limits === void 0 ? `ip:${request.ip}` : `key:${secret}`, limits ?? anonymous, now);
  reply.headers(headers);
  if (retryAfter !== void 0) {
    return reply.code(429).header("retry-after", String(retryAfter)).send(error(429, "rate_limited", "Too many requests"));
  }
  if (limits === void 0) {
    return reply.code(401).header("www-authenticate", 'Bearer realm="animal-store"').send(
      error(401, "unauthorized", "A valid API key is required")
    );
  }
});
app.setErrorHandler((failure, _request, reply) => {
  const status2 = failure.statusCode ?? 500;
  const code = status2 === 400 ? "invalid_request" : status2 === 413 ? "payload_too_large" : status2 === 415 ? "unsupported_media_type" : "internal_error";
  reply.code(status2).send(error(status2, code, status2 === 500 ? "Internal error" : failure.message));
});
var status = { type: "string", enum: ["available", "pending", "sold"] };
app.get("/v1/pets", {
  schema: {
    querystring: {
      type: "object",
      properties: { limit: { type: "integer", minimum: 1, maximum: 100, default: 20 }, status, cursor: { type: "string" } }
    }
  }
}, async (request, reply) => {
  const { cursor, limit, status: status2 } = request.query;
  const afterId = cursor === void 0 ? 0 : cursors.open(cursor, status2);
  if (afterId === void 0) return reply.code(400).send(error(400, "invalid_request", "cursor is not a valid cursor"));
  const rows = status2 === void 0 ? listAll.all(afterId, limit + 1) : listByStatus.all(status2, afterId, limit + 1);
  if (rows.length > limit) {
    rows.length = limit;
    const next = new URLSearchParams({ limit: String(limit), ...status2 === void 0 ? {} : { status: status2 } });
    next.set("cursor", cursors.seal(rows[limit - 1].id, status2));
    reply.header("link", `</v1/pets?${next.toString()}>; rel="next"`);
  }
  return rows;
});
app.post("/v1/pets", {
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
  const name = request.body.name.trim();
  if (name === "") return reply.code(400).send(error(400, "invalid_request", "name must not be empty"));
  const row = insertPet.get(name, request.body.categoryId, request.body.status ?? "available");
  return reply.code(201).header("location", `/v1/pets/${row.id}`).send(row);
});
app.get("/v1/pets/:id", {
  schema: { params: { type: "object", properties: { id: { type: "integer", minimum: 1 } } } }
}, async (request, reply) => {
  reply.headers({
    deprecation: "@1735689600",
    sunset: "Thu, 05 Dec 2030 00:00:00 GMT",
    link: '</v1/pets>; rel="successor-version"'
  });
  if (Date.now() >= sunset) return reply.code(410).send(error(410, "gone", "This operation was removed on its sunset date"));
  const row = findPet.get(request.params.id);
  if (row === void 0) return reply.code(404).send(error(404, "not_found", `No pet with id ${request.params.id}`));
  return row;
});
await app.listen({ port, host });
console.log(`fastify reference listening on http://${host}:${port}`);
var stop = () => void app.close().then(() => process.exit(0));
process.on("SIGTERM", stop);
process.on("SIGINT", stop);
