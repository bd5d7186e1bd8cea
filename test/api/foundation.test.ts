// The cross-cutting answers of the API: envelopes, every error path, validation messages, CORS,
// request logs, metrics and the OpenAPI document.
import SwaggerParser from "@apidevtools/swagger-parser";
import type { Redis } from "ioredis";
import type { Kysely } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stringify } from "../../api/envelope.js";
import { isConnectionError } from "../../adapters/failures.js";
import { agentRouteGroups } from "../../api/routes/index.js";
import { createHttpMetrics } from "../../api/middleware/metrics.js";
import type { PartitionedRouter } from "../../api/router.js";
import type { Database } from "../../adapters/db/api-schema.js";
import { createDb } from "../../adapters/db/connect.js";
import { ApiError, errorCatalog } from "../../domain/errors.js";
import { errorStatus } from "../../contract/error-statuses.js";
import { connectRedis, createTestDatabase, DEAD_POSTGRES_URL, deleteKeys, json, migratedDb, randomPrefix, testApp, type TestDatabase } from "./support.js";
import { testRoutes } from "./test-routes.js";

const OWNER = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8";

const METRICS_TOKEN = "metrics-token-for-tests-0123";
let database: TestDatabase;
let db: Kysely<Database>;
let deadDb: Kysely<Database>;
let redis: Redis;
const prefix = randomPrefix();
let t: ReturnType<typeof testApp>;

beforeAll(async () => {
  database = await createTestDatabase();
  db = await migratedDb(database);
  deadDb = createDb({ url: DEAD_POSTGRES_URL, connectTimeout: 2 });
  redis = await connectRedis();
  t = testApp({
    db,
    redis,
    rateLimit: { keyPrefix: `${prefix}:rl` },
    metricsToken: METRICS_TOKEN,
    options: { agentRoutes: [...agentRouteGroups, testRoutes({ deadDb })] },
  });
});

afterAll(async () => {
  await deleteKeys(redis, prefix);
  await Promise.allSettled([db?.destroy(), deadDb?.destroy(), redis?.quit()]);
  await database?.drop();
});

const post = (path: string, body: string, headers: Record<string, string> = { "content-type": "application/json" }) =>
  t.app.request(path, { method: "POST", body, headers });

describe("envelopes", () => {
  it("answers {data} and writes bigints as decimal strings, dates as ISO strings", async () => {
    const response = await post("/v1/agent/test/echo", JSON.stringify({ owner: OWNER, amount: "12.5" }));
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^application\/json/);
    expect(await json(response)).toEqual({
      data: { owner: OWNER, amount: "12.5", big: "1000000000000000000000000000000", at: "2025-01-02T03:04:05.000Z" },
    });
  });

  it("stringify never throws on bigint, nested or in arrays", () => {
    expect(stringify({ a: [1n, { b: -2n }], c: 3 })).toBe('{"a":["1",{"b":"-2"}],"c":3}');
  });

  it("answers errors as {error, code, details?} with the catalog's status", async () => {
    const response = await t.app.request("/v1/agent/test/refused");
    expect(response.status).toBe(422);
    expect(await json(response)).toEqual({
      error: "part 2 is below its minimum of 5000000 USDG base units",
      code: "FIRST_TOO_SMALL",
      details: { part: 2, minimum: "5000000", unit: "USDG" },
    });
  });

  it("every catalog code has a status, a message and a when", () => {
    for (const [code, entry] of Object.entries(errorCatalog)) {
      expect(code).toMatch(/^[A-Z][A-Z0-9_]+$/);
      expect([400, 401, 402, 404, 409, 422, 429, 500, 503]).toContain(errorStatus[code as keyof typeof errorStatus]);
      expect(entry.message.length).toBeGreaterThan(0);
      expect(entry.when.length).toBeGreaterThan(0);
    }
    expect(Object.keys(errorStatus)).toEqual(Object.keys(errorCatalog));
    expect(new ApiError("NOT_AGENT_VAULT").message).toBe(errorCatalog.NOT_AGENT_VAULT.message);
  });
});

describe("request errors", () => {
  it("malformed JSON is 400 INVALID_REQUEST, not 500", async () => {
    const response = await post("/v1/agent/test/echo", '{"owner": ');
    expect(response.status).toBe(400);
    const body = await json(response);
    expect(body.code).toBe("INVALID_REQUEST");
    expect(body.error).toBe("body: must be valid JSON");
  });

  // The spec's table: an invalid request on any route is 400 INVALID_REQUEST, a body in another content type
  // (or sent without one) too, naming the media type expected.
  it("a wrong content type is 400 INVALID_REQUEST naming content-type", async () => {
    const text = await post("/v1/agent/test/echo", JSON.stringify({ owner: OWNER, amount: "1" }), { "content-type": "text/plain; charset=utf-8" });
    expect(text.status).toBe(400);
    expect(await json(text)).toEqual({
      error: "content-type: must be application/json, not text/plain",
      code: "INVALID_REQUEST",
      details: { field: "content-type", issues: [{ field: "content-type", message: "must be application/json, not text/plain" }] },
    });
    const form = await post("/v1/agent/test/echo", "owner=x", { "content-type": "application/x-www-form-urlencoded" });
    expect([form.status, (await json(form)).code]).toEqual([400, "INVALID_REQUEST"]);
  });

  it("a missing JSON body is 400 INVALID_REQUEST naming the body", async () => {
    const response = await t.app.request("/v1/agent/test/echo", { method: "POST", headers: { "content-type": "application/json" } });
    expect(response.status).toBe(400);
    expect((await json(response)).code).toBe("INVALID_REQUEST");
  });

  it("a body over 64 KiB is 400 INVALID_REQUEST naming its size and the limit, with or without Content-Length", async () => {
    const big = JSON.stringify({ owner: OWNER, amount: "1", pad: "x".repeat(70 * 1024) });
    const withLength = await post("/v1/agent/test/echo", big, { "content-type": "application/json", "content-length": String(big.length) });
    expect(withLength.status).toBe(400);
    const message = `is ${big.length} bytes: at most 65536 bytes (64 KiB)`;
    expect(await json(withLength)).toEqual({
      error: `body: ${message}`,
      code: "INVALID_REQUEST",
      details: { field: "body", issues: [{ field: "body", message }] },
    });
    const streamed = await t.app.request("/v1/agent/test/echo", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: new Blob([big]).stream(),
      duplex: "half",
    } as RequestInit);
    expect(streamed.status).toBe(400);
    expect((await json(streamed)).details).toEqual({
      field: "body",
      issues: [{ field: "body", message: "is larger than the limit: at most 65536 bytes (64 KiB)" }],
    });
  });

  it("a zod failure is 400 INVALID_REQUEST naming the field", async () => {
    const response = await post("/v1/agent/test/echo", JSON.stringify({ owner: "0x1234", amount: "1" }));
    expect(response.status).toBe(400);
    expect(await json(response)).toEqual({
      error: "owner: must be an address (0x followed by 40 hex characters)",
      code: "INVALID_REQUEST",
      details: { field: "owner", issues: [{ field: "owner", message: "must be an address (0x followed by 40 hex characters)" }] },
    });
  });

  it("names nested fields, missing fields and counts the rest", async () => {
    const response = await post("/v1/agent/test/echo", JSON.stringify({ owner: OWNER, agentTag: "Bad Tag", tokens: [{ token: "USDG", weightPct: 0 }] }));
    const body = await json(response);
    expect(response.status).toBe(400);
    expect(body.error).toBe("amount: is required (and 2 more)");
    expect(body.details.issues).toEqual([
      { field: "amount", message: "is required" },
      { field: "agentTag", message: "must be an agent tag (a-z or 0-9 first, then up to 39 of a-z 0-9 . _ -)" },
      { field: "tokens[0].weightPct", message: "must be at least 1" },
    ]);
  });

  it("validates query and path parameters the same way", async () => {
    const query = await t.app.request("/v1/agent/test/list?limit=11");
    expect(query.status).toBe(400);
    expect((await json(query)).error).toBe("limit: must be at most 10");
    const path = await t.app.request("/v1/agent/test/accounts/0xnope");
    expect(path.status).toBe(400);
    expect((await json(path)).error).toBe("owner: must be an address (0x followed by 40 hex characters)");
    const fine = await t.app.request("/v1/agent/test/list");
    expect(await json(fine)).toEqual({ data: { limit: 5 } });
  });

  it("an unknown route is 404 NOT_FOUND", async () => {
    const response = await t.app.request("/v1/agent/nothing-here");
    expect(response.status).toBe(404);
    expect(await json(response)).toEqual({ error: "no route matches this method and path", code: "NOT_FOUND" });
  });

  it("an internal throw is a logged 500 INTERNAL without stack or message", async () => {
    const response = await t.app.request("/v1/agent/test/boom", { headers: { "x-request-id": "req-boom-1" } });
    expect(response.status).toBe(500);
    const text = await response.text();
    expect(JSON.parse(text)).toEqual({ error: "Internal error", code: "INTERNAL" });
    expect(text).not.toMatch(/hunter2|at \w|\.ts/);
    expect(response.headers.get("x-request-id")).toBe("req-boom-1");
    const logged = t.log.lines.find((line) => line.msg === "unhandled error" && line.requestId === "req-boom-1");
    expect(logged).toBeDefined();
  });

  it("a Postgres that cannot be reached is 503 UNAVAILABLE", async () => {
    const response = await t.app.request("/v1/agent/test/pg-down");
    expect(response.status).toBe(503);
    expect(await json(response)).toEqual({ error: errorCatalog.UNAVAILABLE.message, code: "UNAVAILABLE" });
  });

  it("answers a Hono HTTPException by its status, never as 500", async () => {
    const { HTTPException } = await import("hono/http-exception");
    const { errorHandler } = await import("../../api/errors.js");
    const { Hono } = await import("hono");
    const app = new Hono();
    app.get("/401", () => {
      throw new HTTPException(401, { message: "Unauthorized" });
    });
    app.get("/405", () => {
      throw new HTTPException(405, { message: "Method Not Allowed" });
    });
    app.onError(errorHandler(t.log.logger));
    expect(await json(await app.request("/401"))).toEqual({ error: errorCatalog.SESSION_REQUIRED.message, code: "SESSION_REQUIRED" });
    const other = await app.request("/405");
    expect(other.status).toBe(400);
    expect((await json(other)).code).toBe("INVALID_REQUEST");
  });

  it("answers a deadlock's victim or a serialization failure as 503 with Retry-After, not 500", async () => {
    const { errorHandler } = await import("../../api/errors.js");
    const { Hono } = await import("hono");
    const app = new Hono();
    const pgError = (code: string) => Object.assign(new Error("deadlock detected"), { name: "PostgresError", code });
    app.get("/40P01", () => {
      throw pgError("40P01");
    });
    app.get("/40001", () => {
      throw pgError("40001");
    });
    app.get("/23505", () => {
      throw pgError("23505");
    });
    app.onError(errorHandler(t.log.logger));
    for (const path of ["/40P01", "/40001"]) {
      const res = await app.request(path);
      expect(res.status, path).toBe(503);
      expect(res.headers.get("retry-after")).toBe("1");
      expect((await json(res)).code).toBe("UNAVAILABLE");
    }
    expect((await app.request("/23505")).status).toBe(500);
  });

  it("recognises connection failures of postgres.js, ioredis and the network", () => {
    expect(isConnectionError(Object.assign(new Error("write CONNECTION_CLOSED 127.0.0.1:5432"), { code: "CONNECTION_CLOSED" }))).toBe(true);
    expect(isConnectionError(Object.assign(new Error("connect ECONNREFUSED"), { code: "ECONNREFUSED" }))).toBe(true);
    expect(isConnectionError(new Error("Connection is closed."))).toBe(true);
    expect(isConnectionError(new Error("Stream isn't writeable and enableOfflineQueue options is false"))).toBe(true);
    expect(isConnectionError(new Error("wrapped", { cause: Object.assign(new Error("x"), { code: "57P01" }) }))).toBe(true);
    expect(isConnectionError(new AggregateError([Object.assign(new Error("a"), { code: "ECONNREFUSED" })]))).toBe(true);
    expect(isConnectionError(Object.assign(new Error("HTTP request failed."), { name: "HttpRequestError" }))).toBe(true);
    expect(isConnectionError(new TypeError("fetch failed", { cause: Object.assign(new Error("x"), { code: "ECONNREFUSED" }) }))).toBe(true);
    expect(isConnectionError(new Error("syntax error"))).toBe(false);
    expect(isConnectionError(Object.assign(new Error("duplicate key"), { code: "23505" }))).toBe(false);
  });
});

describe("routing", () => {
  it("matches every path but /v1/strategy-finder/… with RegExpRouter (one precompiled expression, no tree walk)", async () => {
    expect((await t.app.request("/health")).status).toBe(200);
    await t.app.request("/v1/strategy-finder/track-record");
    expect((t.app.router as PartitionedRouter<unknown>).activeRouters()).toEqual({ "/v1/strategy-finder/": "TrieRouter", "*": "RegExpRouter" });
  });
});

describe("CORS", () => {
  it("allows GET and POST from any origin on /v1, without credentials", async () => {
    const preflight = await t.app.request("/v1/agent/test/echo", {
      method: "OPTIONS",
      headers: { origin: "https://agent.example", "access-control-request-method": "POST", "access-control-request-headers": "content-type" },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get("access-control-allow-origin")).toBe("*");
    expect(preflight.headers.get("access-control-allow-methods")).toBe("GET,POST");
    expect(preflight.headers.get("access-control-allow-credentials")).toBeNull();
    const simple = await t.app.request("/v1/agent/test/ping", { headers: { origin: "https://agent.example" } });
    expect(simple.headers.get("access-control-allow-origin")).toBe("*");
    expect(simple.headers.get("access-control-expose-headers")).toContain("Retry-After");
  });
});

describe("request log", () => {
  it("logs one line per request without query, Authorization or signatures", async () => {
    const signature = `0x${"ab".repeat(65)}`;
    await t.app.request(`/v1/agent/test/list?limit=2&token=secret-query-value`, {
      headers: { authorization: "Bearer secret-session-token", "x-request-id": "req-log-1", "x-signature": signature },
    });
    const line = t.log.lines.find((l) => l.requestId === "req-log-1" && l.msg === "request");
    expect(line).toMatchObject({ level: "info", method: "GET", path: "/v1/agent/test/list", route: "/v1/agent/test/list", status: 200 });
    expect(typeof line!.ms).toBe("number");
    const all = t.log.text();
    expect(all).not.toContain("secret-session-token");
    expect(all).not.toContain("secret-query-value");
    expect(all).not.toContain(signature);
  });
});

describe("metrics", () => {
  it("are not public on the API port: 401 without METRICS_TOKEN's bearer, 404 when no token is set", async () => {
    expect((await t.app.request("/metrics")).status).toBe(401);
    expect((await t.app.request("/metrics", { headers: { authorization: "Bearer wrong-token-of-sixteen" } })).status).toBe(401);
    const plain = testApp({ db, redis, rateLimit: { keyPrefix: `${prefix}:rl:plain` } });
    const missing = await plain.app.request("/metrics");
    expect(missing.status).toBe(404);
    expect(await missing.text()).not.toContain("http_requests_total");
  });

  it("counts requests and their latency by route pattern and status", async () => {
    await t.app.request(`/v1/agent/test/accounts/${OWNER}`);
    const response = await t.app.request("/metrics", { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
    expect(response.status).toBe(200);
    const text = await response.text();
    expect(text).toContain('http_requests_total{method="GET",route="/v1/agent/test/accounts/:owner",status="200"}');
    expect(text).toMatch(/http_request_duration_seconds_bucket\{le="[\d.]+",method="GET",route="\/v1\/agent\/test\/accounts\/:owner",status="200"\}/);
    expect(text).toContain('route="unmatched",status="404"');
    expect(text).not.toContain(OWNER);
  });

  it("times long polls apart, in buckets up to their 30 s, so they do not bend the other requests' p99", async () => {
    const metrics = createHttpMetrics();
    metrics.record("GET", "/v1/agent/accounts/:owner/activity", 200, 29, true);
    metrics.record("GET", "/v1/agent/accounts/:owner/activity", 200, 0.004);
    const text = await metrics.registry.metrics();
    const labels = 'method="GET",route="/v1/agent/accounts/:owner/activity",status="200"';
    expect(text).toContain(`http_long_poll_duration_seconds_bucket{le="25",${labels}} 0`);
    expect(text).toContain(`http_long_poll_duration_seconds_bucket{le="30",${labels}} 1`);
    expect(text).toContain(`http_request_duration_seconds_count{${labels}} 1`);
    expect(text).toContain(`http_request_duration_seconds_sum{${labels}} 0.004`);
    expect(text).toContain(`http_requests_total{${labels}} 2`);
  });
});

describe("OpenAPI document", () => {
  it("is OpenAPI 3.1.0, version 1.0.0, and valid", async () => {
    const response = await t.app.request("/v1/agent/openapi.json");
    expect(response.status).toBe(200);
    const doc = await json(response);
    expect(doc.openapi).toBe("3.1.0");
    expect(doc.info.version).toBe("1.0.0");
    expect(doc.servers).toEqual([{ url: "http://agent.test" }]);
    await SwaggerParser.validate(structuredClone(doc));
    // swagger-parser 12 checks 3.1 documents against the schema only: check path parameters here.
    for (const [path, item] of Object.entries<any>(doc.paths)) {
      const names = [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
      for (const operation of Object.values<any>(item)) {
        const declared = (operation.parameters ?? []).filter((p: any) => p.in === "path").map((p: any) => p.name);
        expect(declared.sort(), path).toEqual(names.sort());
        expect(operation.responses["400"], path).toBeDefined();
      }
    }

    const signRequest = doc.paths["/v1/agent/sign-requests/{id}"].get;
    expect(Object.keys(signRequest.responses).sort()).toEqual(["200", "400", "404", "429", "500", "503"]);
    expect(signRequest.responses["404"].description).toContain("NOT_FOUND");
    expect(signRequest.responses["429"].headers["Retry-After"]).toBeDefined();
    expect(doc.components.schemas.Error.properties.code.enum).toContain("SWAP_UNAVAILABLE");
    expect(doc.paths["/v1/agent/test/refused"].get.responses["422"].description).toContain("FIRST_TOO_SMALL");
  });
});
